import { defineResource } from '../contract.ts';
import { create } from './create.ts';
import { remove } from './delete.ts';
import { read } from './get.ts';
import { list } from './list.ts';
import { listMembersRoute, putMemberRoute, removeMember } from './members.ts';
import { update } from './update.ts';

/**
 * `/api/v1/workspaces`: any administrator lists and reads the workspaces
 * they may see (404 for others); creating, changing and deleting need
 * `workspaces.write` (server-wide owners); members are managed by a server
 * owner or the workspace's own owner.
 */
export const workspacesApi = defineResource({
  base: '/api/v1/workspaces',
  tag: { name: 'Management: workspaces', description: 'Workspaces and their members' },
  routes: [list, create, read, update, remove, listMembersRoute, putMemberRoute, removeMember],
});
