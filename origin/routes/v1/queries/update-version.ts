import type { Hono } from 'hono';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { cacheTtlFields } from '../../../services/queries/fields.ts';
import { setCacheTtl } from '../../../services/queries/set-cache-ttl.ts';
import { versionParam } from './paths.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/** PATCH /api/v1/queries/{name}/versions/{n} `{cache_ttl}`: in place, not a new version; `If-Match`. */
export function registerUpdateVersion(api: Hono<AppEnv>): void {
  api.patch('/:name/versions/:version', async (c) => {
    const number = versionParam(c);
    const { cache_ttl } = await readBody(c, cacheTtlFields);
    const { version, etag } = await setCacheTtl(c.get('deps'), c.get('caller'), c.req.param('name'), number, cache_ttl, {
      workspace: listedWorkspace(c),
      ifMatch: c.req.header('if-match'),
    });
    c.header('ETag', etag);
    return c.json(version);
  });
}
