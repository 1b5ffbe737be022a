import type { Context } from 'hono';
import type { Caller } from '../../access/caller.ts';
import { presentedSignInToken } from '../../access/jwt.ts';
import type { AppDeps } from '../../deps.ts';
import { clientSignal } from '../../http/client-signal.ts';
import type { AppEnv } from '../../http/context.ts';
import { requestScopeOf } from '../../http/request-scope.ts';
import type { RequestScope } from '../../observability/request-context.ts';

/**
 * What a tool call needs of the `/mcp` request that carried it, taken from
 * that request once: its caller (authenticated afresh on every request), its
 * scope, the sign-in token it presented, the client's signal, and where the
 * origin's main port answers (for the URLs a cut result gives).
 */
export interface McpCall {
  deps: AppDeps;
  caller: Caller;
  scope: RequestScope;
  signInToken: string | undefined;
  /** Aborted when the client of the `/mcp` request goes away. */
  signal(): AbortSignal;
  /** An address on the origin's main port. */
  mainUrl(path: string): string;
}

export function mcpCallOf(c: Context<AppEnv>): McpCall {
  const deps = c.get('deps');
  return {
    deps,
    caller: c.get('caller'),
    scope: requestScopeOf(c),
    signInToken: presentedSignInToken((header) => c.req.header(header)),
    signal: () => clientSignal(c),
    mainUrl: (path) => mainUrl(deps, c.req.url, path),
  };
}

/**
 * An address on the origin's main port: a call that came in on
 * SLUICE_MCP_PORT, which serves only `/mcp`, is pointed at SLUICE_PORT.
 */
function mainUrl(deps: AppDeps, requestUrl: string, path: string): string {
  const url = new URL(path, requestUrl);
  const ports = deps.ports;
  if (ports?.mcp !== undefined && ports.main !== undefined && url.port === String(ports.mcp)) url.port = String(ports.main);
  return url.toString();
}
