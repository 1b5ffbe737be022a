import { Hono } from 'hono';
import { listAlerts } from '../../../services/alerts/list.ts';
import type { AppEnv } from '../../../http/context.ts';
import { requireCapability } from '../require-capability.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/** `/api/v1/alerts`: every alert firing now, `{alerts: [...]}` (a workspace-scoped call: those about its workspace's objects) (`alerts.read`; docs/reference/alerts.md). */
export const alertsApi = new Hono<AppEnv>();
alertsApi.use(requireCapability('alerts'));
alertsApi.get('/', async (c) => c.json(await listAlerts(c.get('deps'), { workspace: listedWorkspace(c) })));
