import { listAlerts } from '../../../services/alerts/list.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineResource, defineRoute } from '../contract.ts';

/** `/api/v1/alerts`: every alert firing now, `{alerts: [...]}` (a workspace-scoped call: those about its workspace's objects) (`alerts.read`; docs/reference/alerts.md). */
const list = defineRoute({
  method: 'get',
  path: '/',
  id: 'listAlerts',
  summary: 'Alerts firing now',
  handler: async (c) => c.json(await listAlerts(c.get('deps'), { workspace: listedWorkspace(c) })),
});

export const alertsApi = defineResource({
  base: '/api/v1/alerts',
  area: 'alerts',
  tag: { name: 'Management: alerts', description: 'Alerts firing now' },
  routes: [list],
});
