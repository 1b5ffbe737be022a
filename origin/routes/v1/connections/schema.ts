import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { connectionSchema } from '../../../services/connections/schema.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/** GET /api/v1/connections/{name}/schema[?database=]: `{tables, truncated}`; an inactive connection may be inspected. */
export function registerSchema(api: Hono<AppEnv>): void {
  api.get('/:name/schema', async (c) => {
    const database = c.req.query('database') || undefined;
    return c.json(await connectionSchema(c.get('deps'), c.req.param('name'), { database, requireActive: false, workspace: listedWorkspace(c) }));
  });
}
