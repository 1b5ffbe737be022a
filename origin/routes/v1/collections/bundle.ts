import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { snapshotBundle } from '../../../services/collections/bundle-snapshot.ts';
import { assertCapability } from '../require-capability.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/**
 * GET /api/v1/collections/{name}/bundle: the collection bundle (`format:
 * sluice-bundle`), the newest version of each of its queries, as a download.
 * It shows SQL, so it needs `queries.read` besides the router's
 * `collections.read`. 404 `collection_not_found`.
 */
export function registerBundle(api: Hono<AppEnv>): void {
  api.get('/:name/bundle', async (c) => {
    assertCapability(c.get('caller'), c.get('workspace'), 'queries.read');
    const name = c.req.param('name');
    const bundle = await snapshotBundle(c.get('deps'), name, { workspace: listedWorkspace(c) });
    c.header('Content-Disposition', `attachment; filename="${name.replace(/[^a-z0-9._-]/g, '_')}.sluice-bundle.json"`);
    return c.json(bundle);
  });
}
