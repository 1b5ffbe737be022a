/** What `GET /api/v1/me` said about the signed-in caller, in the workspace acted in. */
export interface Me {
  name: string;
  role: string | null;
  via: string;
  capabilities: string[];
  data_access: 'all' | 'none';
  workspace: string;
  server_wide: boolean;
  workspaces: Array<{ name: string; role: string | null }>;
  /** SLUICE_TRACE_URL: a trace viewer's link with `{trace_id}` in it, or null. */
  trace_url: string | null;
}

let current: Me | null = null;

export const state = {
  get me(): Me | null {
    return current;
  },
  set(me: Me | null): void {
    current = me;
  },
};

/** Whether the caller holds a capability: controls that need one they lack are not shown. */
export const can = (capability: string): boolean => current?.capabilities.includes(capability) ?? false;
