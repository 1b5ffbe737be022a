import { readEntry } from '../../../services/cache/entries.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/** GET /api/v1/cache/entries/{key}: the cached body with its real content type and ETag; 404 `cache_entry_not_found`. */
export const read = defineRoute({
  method: 'get',
  path: '/entries/:key',
  id: 'getCacheEntry',
  summary: 'Read one cached body, with its own content type',
  responses: { 200: { description: 'The cached body', content: { '*/*': { schema: {} } } } },
  handler: async (c) => {
    const entry = await readEntry(c.get('deps'), c.req.param('key'), { workspace: listedWorkspace(c) });
    return new Response(entry.body as Uint8Array<ArrayBuffer>, {
      status: 200,
      headers: { 'Content-Type': entry.contentType, ETag: entry.etag, 'Cache-Control': 'no-store' },
    });
  },
});
