import { defineResource } from '../contract.ts';
import { create } from './create.ts';
import { remove } from './delete.ts';
import { read } from './get.ts';
import { list } from './list.ts';
import { update } from './update.ts';

/** `/api/v1/roles`: key grant templates, `roles.read` to read and `roles.write` to change. */
export const rolesApi = defineResource({
  base: '/api/v1/roles',
  area: 'roles',
  tag: { name: 'Management: roles', description: 'Roles: templates of key grants' },
  lock: 'roles',
  routes: [list, create, read, update, remove],
});
