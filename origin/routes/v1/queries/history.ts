import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { parseHistoryFilters } from '../../../services/history/filters.ts';
import { listQueryRuns } from '../../../services/history/list.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/**
 * GET /api/v1/queries/{name}/history: the query's runs, newest first, by
 * default the newest SLUICE_HISTORY_LIMIT; filters `version`, `status`,
 * `key`, `since`, `until`, `limit`, `cursor`.
 */
export function registerHistory(api: Hono<AppEnv>): void {
  api.get('/:name/history', async (c) => {
    const deps = c.get('deps');
    const filters = parseHistoryFilters(c.req.queries(), ['version', 'status', 'key', 'since', 'until', 'limit', 'cursor'], deps.env.SLUICE_HISTORY_LIMIT);
    return c.json(await listQueryRuns(deps, c.req.param('name'), filters, { workspace: listedWorkspace(c) }));
  });
}
