import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { deleteVersion } from '../../../services/queries/delete-version.ts';
import { versionParam } from './paths.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/**
 * DELETE /api/v1/queries/{name}/versions/{n}: `{name, version, query_removed,
 * query}`, the query as it now is (with its ETag), or null when that was its
 * last version; `If-Match`.
 */
export function registerDeleteVersion(api: Hono<AppEnv>): void {
  api.delete('/:name/versions/:version', async (c) => {
    const { etag, ...deleted } = await deleteVersion(c.get('deps'), c.get('caller'), c.req.param('name'), versionParam(c), {
      workspace: listedWorkspace(c),
      ifMatch: c.req.header('if-match'),
    });
    if (etag !== null) c.header('ETag', etag);
    return c.json(deleted);
  });
}
