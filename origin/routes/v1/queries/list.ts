import { queryParam } from '../../../services/discovery/operations.ts';
import { LIST_STATUSES, listQueries } from '../../../services/queries/list.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

const text = { type: 'string' };

/** GET /api/v1/queries[?search=&collection=&connection=&status=]: summaries by name; 400 for an unknown status. */
export const list = defineRoute({
  method: 'get',
  path: '/',
  id: 'listQueries',
  summary: 'List saved queries (summaries, no SQL)',
  parameters: [
    queryParam('search', text, 'In name, description or tags'),
    queryParam('collection', text),
    queryParam('connection', text),
    queryParam('status', { type: 'string', enum: [...LIST_STATUSES] }),
  ],
  handler: async (c) => {
    const filters = {
      search: c.req.query('search') || undefined,
      collection: c.req.query('collection') || undefined,
      connection: c.req.query('connection') || undefined,
      status: c.req.query('status') || undefined,
      workspace: listedWorkspace(c),
    };
    return c.json({ queries: await listQueries(c.get('deps'), filters) });
  },
});
