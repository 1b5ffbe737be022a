import { listAudit, parseAuditFilters } from '../../../audit/list.ts';
import { queryParam } from '../../../services/discovery/operations.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

const text = { type: 'string' };

/**
 * GET /api/v1/audit: entries newest first; filters `action`, `actor`,
 * `target`, `q`, `limit`, `cursor`; `total`, `actions`, `retention`. A
 * workspace-scoped call lists and counts only that workspace's entries.
 */
export const list = defineRoute({
  method: 'get',
  path: '/',
  id: 'listAudit',
  summary: 'Audit entries, newest first, with total, actions and retention',
  parameters: [
    queryParam('action', text),
    queryParam('actor', text),
    queryParam('target', text),
    queryParam('q', text, 'Text in the target or the changes'),
    queryParam('limit', { type: 'integer', minimum: 1, maximum: 1000 }),
    queryParam('cursor', text, 'next_cursor of the previous page'),
  ],
  handler: async (c) => {
    const deps = c.get('deps');
    const filters = { ...parseAuditFilters(c.req.queries()), workspace: listedWorkspace(c) };
    return c.json(await listAudit(deps.store.db, filters, deps.env.SLUICE_AUDIT_LOG_LIMIT ?? null));
  },
});
