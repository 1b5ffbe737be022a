import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { listQueries } from '../../../services/queries/list.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/** GET /api/v1/queries[?search=&collection=&connection=&status=]: summaries by name; 400 for an unknown status. */
export function registerList(api: Hono<AppEnv>): void {
  api.get('/', async (c) => {
    const filters = {
      search: c.req.query('search') || undefined,
      collection: c.req.query('collection') || undefined,
      connection: c.req.query('connection') || undefined,
      status: c.req.query('status') || undefined,
      workspace: listedWorkspace(c),
    };
    return c.json({ queries: await listQueries(c.get('deps'), filters) });
  });
}
