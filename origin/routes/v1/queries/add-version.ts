import type { Hono } from 'hono';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { addVersion } from '../../../services/queries/add-version.ts';
import { versionFields } from '../../../services/queries/fields.ts';
import { versionPath } from './paths.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/** POST /api/v1/queries/{name}/versions: 201 with the query; a draft unless `publish` is true; `If-Match`. */
export function registerAddVersion(api: Hono<AppEnv>): void {
  api.post('/:name/versions', async (c) => {
    const input = await readBody(c, versionFields);
    const { query, etag, version } = await addVersion(c.get('deps'), c.get('caller'), c.req.param('name'), input, {
      workspace: listedWorkspace(c),
      ifMatch: c.req.header('if-match'),
    });
    c.header('ETag', etag);
    c.header('Location', versionPath(query.name, version));
    return c.json(query, 201);
  });
}
