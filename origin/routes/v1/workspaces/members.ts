import type { Context } from 'hono';
import { managesMembers } from '../../../access/administration.ts';
import { SluiceError } from '../../../errors.ts';
import type { AppEnv } from '../../../http/context.ts';
import { memberFields } from '../../../services/workspaces/fields.ts';
import { findWorkspace } from '../../../services/workspaces/lookup.ts';
import { deleteMember, listMembers, putMember } from '../../../services/workspaces/members.ts';
import { defineRoute } from '../contract.ts';
import { assertAdministrator } from '../require-capability.ts';

/** A server owner or the workspace's own owner; others who may see it get 403, the rest 404. */
async function managesMembersOf(c: Context<AppEnv>): Promise<void> {
  const caller = c.get('caller');
  const workspace = c.req.param('name') ?? '';
  assertAdministrator(caller);
  await findWorkspace(c.get('deps').store.db, caller, workspace);
  if (!managesMembers(caller, workspace)) {
    throw new SluiceError('forbidden', `Only a server owner or an owner of workspace "${workspace}" manages its members`);
  }
}

/*
 * GET `/api/v1/workspaces/{name}/members` (anyone who may see the
 * workspace), PUT and DELETE `.../members/{admin}` (`{role}`; 201 when added;
 * DELETE 404 `member_not_found`).
 */

export const listMembersRoute = defineRoute({
  method: 'get',
  path: '/:name/members',
  id: 'listWorkspaceMembers',
  summary: 'Members and their roles',
  access: 'administrator',
  handler: async (c) => c.json({ members: await listMembers(c.get('deps'), c.get('caller'), c.req.param('name')) }),
});

export const putMemberRoute = defineRoute({
  method: 'put',
  path: '/:name/members/:admin',
  id: 'putWorkspaceMember',
  summary: 'Add a member or change their role (server or workspace owner)',
  access: managesMembersOf,
  body: memberFields,
  handler: async (c, input) => {
    const { member, created } = await putMember(c.get('deps'), c.get('caller'), c.req.param('name'), c.req.param('admin'), input);
    return c.json(member, created ? 201 : 200);
  },
});

export const removeMember = defineRoute({
  method: 'delete',
  path: '/:name/members/:admin',
  id: 'removeWorkspaceMember',
  summary: 'Remove a member (server or workspace owner)',
  access: managesMembersOf,
  handler: async (c) => c.json(await deleteMember(c.get('deps'), c.get('caller'), c.req.param('name'), c.req.param('admin'))),
});
