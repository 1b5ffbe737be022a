import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { parseHistoryFilters } from '../../../services/history/filters.ts';
import { listRuns } from '../../../services/history/list.ts';
import { listedWorkspace } from '../acting-workspace.ts';

const DEFAULT_LIMIT = 100;

/**
 * GET /api/v1/history: every recorded run, newest first; filters `query`,
 * `version`, `status`, `key`, `since`, `until`, `limit`, `cursor`. A
 * workspace-scoped call lists only that workspace's runs.
 */
export function registerList(api: Hono<AppEnv>): void {
  api.get('/', async (c) => {
    const filters = parseHistoryFilters(c.req.queries(), ['query', 'version', 'status', 'key', 'since', 'until', 'limit', 'cursor'], DEFAULT_LIMIT);
    return c.json(await listRuns(c.get('deps'), filters, { workspace: listedWorkspace(c) }));
  });
}
