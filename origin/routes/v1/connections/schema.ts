import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { describedSchema } from '../../../services/connections/schema.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/**
 * GET /api/v1/connections/{name}/schema[?database=]: `{tables, truncated, notes}`,
 * tables and columns with their descriptions; an inactive connection may be inspected.
 */
export function registerSchema(api: Hono<AppEnv>): void {
  api.get('/:name/schema', async (c) => {
    const database = c.req.query('database') || undefined;
    return c.json(await describedSchema(c.get('deps'), c.req.param('name'), { database, workspace: listedWorkspace(c) }));
  });
}
