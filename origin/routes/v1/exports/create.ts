import type { Hono } from 'hono';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { createExport } from '../../../services/exports/create.ts';
import { createFields } from '../../../services/exports/fields.ts';

/** POST /api/v1/exports: 201 with the export and its ETag; 409 `export_exists`; 400 naming every problem with its destination, query, params and path. */
export function registerCreate(api: Hono<AppEnv>): void {
  api.post('/', async (c) => {
    const input = await readBody(c, createFields);
    const { export: created, etag } = await createExport(c.get('deps'), c.get('caller'), input, c.get('workspace'));
    c.header('ETag', etag);
    c.header('Location', `/api/v1/exports/${encodeURIComponent(created.name)}`);
    return c.json(created, 201);
  });
}
