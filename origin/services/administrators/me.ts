import { capabilitiesIn, holds, maySee, roleIn, roleIsServerWide } from '../../access/administration.ts';
import type { AdminRole, Capability } from '../../access/capabilities.ts';
import { accessDirectory } from '../../access/directory.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller, CallerVia } from '../../access/caller.ts';

/** `GET /api/v1/me`: who the caller is and what they may do in the workspace they act in, and where else. */
export interface MeView {
  name: string;
  /** The role in effect in `workspace` (server-wide, or the membership's when that is null). */
  role: AdminRole | null;
  via: CallerVia;
  capabilities: Capability[];
  /** `all`: may run every saved query (drafts too) and ad-hoc SQL (`data.run`); `none` otherwise. */
  data_access: 'all' | 'none';
  workspace: string;
  server_wide: boolean;
  workspaces: Array<{ name: string; role: AdminRole | null }>;
  /** SLUICE_TRACE_URL, the trace viewer's link with `{trace_id}` in it: the console links a run's trace with it. */
  trace_url: string | null;
}

export async function describeCaller(deps: AppDeps, caller: Caller, workspace: string): Promise<MeView> {
  const { workspaces } = await accessDirectory(deps).view();
  return {
    name: caller.name,
    role: roleIn(caller, workspace),
    via: caller.via,
    capabilities: capabilitiesIn(caller, workspace),
    data_access: holds(caller, workspace, 'data.run') ? 'all' : 'none',
    workspace,
    server_wide: roleIsServerWide(caller),
    workspaces: [...workspaces]
      .filter((name) => maySee(caller, name))
      .sort()
      .map((name) => ({ name, role: roleIn(caller, name) })),
    trace_url: deps.env.SLUICE_TRACE_URL ?? null,
  };
}
