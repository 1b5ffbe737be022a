import { getVersion } from '../../../services/queries/get.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';
import { versionParam } from './paths.ts';

/** GET /api/v1/queries/{name}/versions/{n}: one version with the query's ETag; 404 `version_not_found`. */
export const readVersion = defineRoute({
  method: 'get',
  path: '/:name/versions/:version',
  id: 'getQueryVersion',
  summary: 'Read one version',
  handler: async (c) => {
    const { version, etag } = await getVersion(c.get('deps'), c.req.param('name'), versionParam(c), { workspace: listedWorkspace(c) });
    c.header('ETag', etag);
    return c.json(version);
  },
});
