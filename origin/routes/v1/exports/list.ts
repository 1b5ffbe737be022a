import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { listExports } from '../../../services/exports/list.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/** GET /api/v1/exports: every export (a workspace-scoped call: that workspace's), with its watermark and whether it runs now. */
export function registerList(api: Hono<AppEnv>): void {
  api.get('/', async (c) => c.json({ exports: await listExports(c.get('deps'), listedWorkspace(c)) }));
}
