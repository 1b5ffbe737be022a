import type { Hono } from 'hono';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { createQuery } from '../../../services/queries/create.ts';
import { createFields } from '../../../services/queries/fields.ts';
import { queryPath } from './paths.ts';

/** POST /api/v1/queries: 201 with the query, its first version and an ETag; 409 `query_exists`; 400 with `errors`. */
export function registerCreate(api: Hono<AppEnv>): void {
  api.post('/', async (c) => {
    const input = await readBody(c, createFields);
    const { query, etag } = await createQuery(c.get('deps'), c.get('caller'), input, c.get('workspace'));
    c.header('ETag', etag);
    c.header('Location', queryPath(query.name));
    return c.json(query, 201);
  });
}
