import type { Context, Hono } from 'hono';
import { managesMembers } from '../../../access/administration.ts';
import { SluiceError } from '../../../errors.ts';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { memberFields } from '../../../services/workspaces/fields.ts';
import { findWorkspace } from '../../../services/workspaces/lookup.ts';
import { listMembers, putMember, deleteMember } from '../../../services/workspaces/members.ts';
import { assertAdministrator } from '../require-capability.ts';

/** A server owner or the workspace's own owner; others who may see it get 403, the rest 404. */
async function assertManagesMembers(c: Context<AppEnv>, workspace: string): Promise<void> {
  const caller = c.get('caller');
  assertAdministrator(caller);
  await findWorkspace(c.get('deps').store.db, caller, workspace);
  if (!managesMembers(caller, workspace)) {
    throw new SluiceError('forbidden', `Only a server owner or an owner of workspace "${workspace}" manages its members`);
  }
}

/**
 * GET `/api/v1/workspaces/{name}/members` (anyone who may see the
 * workspace), PUT and DELETE `.../members/{admin}` (`{role}`; 201 when added;
 * DELETE 404 `member_not_found`).
 */
export function registerMembers(api: Hono<AppEnv>): void {
  api.get('/:name/members', async (c) => c.json({ members: await listMembers(c.get('deps'), c.get('caller'), c.req.param('name')) }));

  api.put('/:name/members/:admin', async (c) => {
    const workspace = c.req.param('name');
    await assertManagesMembers(c, workspace);
    const input = await readBody(c, memberFields);
    const { member, created } = await putMember(c.get('deps'), c.get('caller'), workspace, c.req.param('admin'), input);
    return c.json(member, created ? 201 : 200);
  });

  api.delete('/:name/members/:admin', async (c) => {
    const workspace = c.req.param('name');
    await assertManagesMembers(c, workspace);
    return c.json(await deleteMember(c.get('deps'), c.get('caller'), workspace, c.req.param('admin')));
  });
}
