import { describeCaller } from '../../services/administrators/me.ts';
import { ADMINISTRATORS_TAG } from './administrators/index.ts';
import { defineResource, defineRoute } from './contract.ts';

/** `GET /api/v1/me`: any administrator, in the workspace the call acts in. */
const me = defineRoute({
  method: 'get',
  path: '/',
  id: 'getMe',
  summary: 'Who is calling: name, role, via, capabilities, data access, workspace, workspaces, the trace viewer link',
  access: 'administrator',
  handler: async (c) => c.json(await describeCaller(c.get('deps'), c.get('caller'), c.get('workspace'))),
});

export const meApi = defineResource({ base: '/api/v1/me', tag: ADMINISTRATORS_TAG, routes: [me] });
