import { listExports } from '../../../services/exports/list.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/** GET /api/v1/exports: every export (a workspace-scoped call: that workspace's), with its watermark and whether it runs now. */
export const list = defineRoute({
  method: 'get',
  path: '/',
  id: 'listExports',
  summary: 'List exports with their watermark and whether one runs now',
  handler: async (c) => c.json({ exports: await listExports(c.get('deps'), listedWorkspace(c)) }),
});
