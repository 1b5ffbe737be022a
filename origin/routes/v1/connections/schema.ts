import { describedSchema } from '../../../services/connections/schema.ts';
import { queryParam } from '../../../services/discovery/operations.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/**
 * GET /api/v1/connections/{name}/schema[?database=]: `{tables, truncated, notes}`,
 * tables and columns with their descriptions; an inactive connection may be inspected.
 */
export const schema = defineRoute({
  method: 'get',
  path: '/:name/schema',
  id: 'getConnectionSchemaV1',
  summary: 'Tables and columns with their descriptions, and the connection notes; also of an inactive connection',
  parameters: [queryParam('database', { type: 'string' })],
  handler: async (c) => {
    const database = c.req.query('database') || undefined;
    return c.json(await describedSchema(c.get('deps'), c.req.param('name'), { database, workspace: listedWorkspace(c) }));
  },
});
