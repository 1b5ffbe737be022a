import { defineResource } from '../contract.ts';
import { create } from './create.ts';
import { remove } from './delete.ts';
import { read } from './get.ts';
import { list } from './list.ts';
import { issue, listTokensRoute, revoke } from './tokens.ts';
import { update } from './update.ts';

export const ADMINISTRATORS_TAG = { name: 'Management: administrators', description: 'Named administrators, their roles and sign-in tokens; who is calling' };

/**
 * `/api/v1/administrators`: reading needs `administrators.read`, changes
 * `administrators.write` (server-wide owners); everyone manages their own
 * tokens.
 */
export const administratorsApi = defineResource({
  base: '/api/v1/administrators',
  area: 'administrators',
  tag: ADMINISTRATORS_TAG,
  routes: [list, create, read, update, remove, listTokensRoute, issue, revoke],
});
