import type { Hono } from 'hono';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { createDestination } from '../../../services/destinations/create.ts';
import { createFields } from '../../../services/destinations/fields.ts';

/** POST /api/v1/destinations: 201 with the destination and its ETag; 409 `destination_exists`. */
export function registerCreate(api: Hono<AppEnv>): void {
  api.post('/', async (c) => {
    const input = await readBody(c, createFields);
    const { destination, etag } = await createDestination(c.get('deps'), c.get('caller'), input, c.get('workspace'));
    c.header('ETag', etag);
    c.header('Location', `/api/v1/destinations/${encodeURIComponent(destination.name)}`);
    return c.json(destination, 201);
  });
}
