import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { readEntry } from '../../../services/cache/entries.ts';

/** GET /api/v1/cache/entries/{key}: the cached body with its real content type and ETag; 404 `cache_entry_not_found`. */
export function registerGet(api: Hono<AppEnv>): void {
  api.get('/entries/:key', async (c) => {
    const entry = await readEntry(c.get('deps'), c.req.param('key'), { workspace: listedWorkspace(c) });
    return new Response(entry.body as Uint8Array<ArrayBuffer>, {
      status: 200,
      headers: { 'Content-Type': entry.contentType, ETag: entry.etag, 'Cache-Control': 'no-store' },
    });
  });
}
