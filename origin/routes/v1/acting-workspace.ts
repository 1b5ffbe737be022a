import { getPath } from 'hono/utils/url';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { DEFAULT_WORKSPACE, maySee } from '../../access/administration.ts';
import { accessChangeScope, accessDirectory } from '../../access/directory.ts';
import type { AppEnv } from '../../http/context.ts';
import { workspaceNotFound } from '../../services/workspaces/lookup.ts';
import { assertAdministrator } from './require-capability.ts';

/** `/w/<workspace>/api/v1/...`: the same Management API, acting in that workspace. */
const SCOPED = /^\/w\/([^/]+)(\/api\/v1(?:\/.*)?)$/;

/**
 * The app's `getPath`: a workspace-scoped call is routed as its `/api/v1/...`
 * path, so every Management API router serves both forms; `actingWorkspace`
 * reads the workspace from the URL itself.
 */
export function routingPath(request: Request): string {
  const path = getPath(request);
  const scoped = SCOPED.exec(path);
  return scoped ? scoped[2]! : path;
}

/**
 * Before every Management API route: only administrators pass (a scoped key
 * gets 403), and the call acts in `default`, or in the workspace of a
 * `/w/<workspace>/` path, which must exist and be one the caller may see
 * (404 otherwise, the same for both). The request runs in an access-change
 * scope, so a change to keys or administrators it commits is in force for
 * the very next request.
 */
export const actingWorkspace = createMiddleware<AppEnv>(async (c, next) => {
  const caller = c.get('caller');
  assertAdministrator(caller);
  const scoped = SCOPED.exec(new URL(c.req.url).pathname);
  let workspace = DEFAULT_WORKSPACE;
  if (scoped) {
    try {
      workspace = decodeURIComponent(scoped[1]!);
    } catch {
      throw workspaceNotFound(scoped[1]!);
    }
    const { workspaces } = await accessDirectory(c.get('deps')).view();
    if (!workspaces.has(workspace) || !maySee(caller, workspace)) throw workspaceNotFound(workspace);
  }
  c.set('workspace', workspace);
  c.set('workspaceScoped', scoped !== null);
  await accessChangeScope(next, () => !c.error && c.res.status < 400);
});

/** The workspace a list or a lookup by name is limited to: the acting one on a `/w/<workspace>/` path; none (everything) on plain `/api/v1`. */
export const listedWorkspace = (c: Context<AppEnv>): string | undefined => (c.get('workspaceScoped') ? c.get('workspace') : undefined);
