import { IF_MATCH } from '../../../services/discovery/operations.ts';
import { deleteVersion } from '../../../services/queries/delete-version.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';
import { versionParam } from './paths.ts';

/**
 * DELETE /api/v1/queries/{name}/versions/{n}: `{name, version, query_removed,
 * query}`, the query as it now is (with its ETag), or null when that was its
 * last version; `If-Match`.
 */
export const removeVersion = defineRoute({
  method: 'delete',
  path: '/:name/versions/:version',
  id: 'deleteQueryVersion',
  summary: 'Delete one version',
  parameters: [IF_MATCH],
  handler: async (c) => {
    const { etag, ...deleted } = await deleteVersion(c.get('deps'), c.get('caller'), c.req.param('name'), versionParam(c), {
      workspace: listedWorkspace(c),
      ifMatch: c.req.header('if-match'),
    });
    if (etag !== null) c.header('ETag', etag);
    return c.json(deleted);
  },
});
