import type { Hono } from 'hono';
import { listAudit, parseAuditFilters } from '../../../audit/list.ts';
import type { AppEnv } from '../../../http/context.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/**
 * GET /api/v1/audit: entries newest first; filters `action`, `actor`,
 * `target`, `q`, `limit`, `cursor`; `total`, `actions`, `retention`. A
 * workspace-scoped call lists and counts only that workspace's entries.
 */
export function registerList(api: Hono<AppEnv>): void {
  api.get('/', async (c) => {
    const deps = c.get('deps');
    const filters = { ...parseAuditFilters(c.req.queries()), workspace: listedWorkspace(c) };
    return c.json(await listAudit(deps.store.db, filters, deps.env.SLUICE_AUDIT_LOG_LIMIT ?? null));
  });
}
