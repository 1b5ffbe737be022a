import { parseHistoryFilters } from '../../../services/history/filters.ts';
import { listQueryRuns } from '../../../services/history/list.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';
import { historyParameters } from '../history/parameters.ts';

const FILTERS = ['version', 'status', 'key', 'since', 'until', 'limit', 'cursor'] as const;

/**
 * GET /api/v1/queries/{name}/history: the query's runs, newest first, by
 * default the newest SLUICE_HISTORY_LIMIT; filters `version`, `status`,
 * `key`, `since`, `until`, `limit`, `cursor`.
 */
export const history = defineRoute({
  method: 'get',
  path: '/:name/history',
  id: 'listQueryHistory',
  summary: 'Runs of the query, newest first',
  parameters: historyParameters(FILTERS),
  handler: async (c) => {
    const deps = c.get('deps');
    const filters = parseHistoryFilters(c.req.queries(), FILTERS, deps.env.SLUICE_HISTORY_LIMIT);
    return c.json(await listQueryRuns(deps, c.req.param('name'), filters, { workspace: listedWorkspace(c) }));
  },
});
