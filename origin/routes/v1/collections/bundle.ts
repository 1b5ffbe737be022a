import { snapshotBundle } from '../../../services/collections/bundle-snapshot.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/**
 * GET /api/v1/collections/{name}/bundle: the collection bundle (`format:
 * sluice-bundle`), the newest version of each of its queries, as a download.
 * It shows SQL, so it needs `queries.read` besides `collections.read`. 404
 * `collection_not_found`.
 */
export const bundle = defineRoute({
  method: 'get',
  path: '/:name/bundle',
  id: 'getCollectionBundle',
  summary: 'The collection bundle (sluice-bundle): the newest version of each query, no history, keys, roles or connection details',
  access: ['collections.read', 'queries.read'],
  handler: async (c) => {
    const name = c.req.param('name');
    const bundle = await snapshotBundle(c.get('deps'), name, { workspace: listedWorkspace(c) });
    c.header('Content-Disposition', `attachment; filename="${name.replace(/[^a-z0-9._-]/g, '_')}.sluice-bundle.json"`);
    return c.json(bundle);
  },
});
