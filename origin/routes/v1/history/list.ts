import { parseHistoryFilters } from '../../../services/history/filters.ts';
import { listRuns } from '../../../services/history/list.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';
import { historyParameters } from './parameters.ts';

const DEFAULT_LIMIT = 100;
const FILTERS = ['query', 'version', 'status', 'key', 'since', 'until', 'limit', 'cursor'] as const;

/**
 * GET /api/v1/history: every recorded run, newest first; filters `query`,
 * `version`, `status`, `key`, `since`, `until`, `limit`, `cursor`. A
 * workspace-scoped call lists only that workspace's runs.
 */
export const list = defineRoute({
  method: 'get',
  path: '/',
  id: 'listHistory',
  summary: 'Every recorded run, newest first',
  parameters: historyParameters(FILTERS),
  handler: async (c) => {
    const filters = parseHistoryFilters(c.req.queries(), FILTERS, DEFAULT_LIMIT);
    return c.json(await listRuns(c.get('deps'), filters, { workspace: listedWorkspace(c) }));
  },
});
