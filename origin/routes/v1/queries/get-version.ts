import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { getVersion } from '../../../services/queries/get.ts';
import { versionParam } from './paths.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/** GET /api/v1/queries/{name}/versions/{n}: one version with the query's ETag; 404 `version_not_found`. */
export function registerGetVersion(api: Hono<AppEnv>): void {
  api.get('/:name/versions/:version', async (c) => {
    const { version, etag } = await getVersion(c.get('deps'), c.req.param('name'), versionParam(c), { workspace: listedWorkspace(c) });
    c.header('ETag', etag);
    return c.json(version);
  });
}
