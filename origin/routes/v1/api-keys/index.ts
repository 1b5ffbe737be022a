import { defineResource } from '../contract.ts';
import { create } from './create.ts';
import { remove } from './delete.ts';
import { endPrevious } from './end-previous.ts';
import { read } from './get.ts';
import { list } from './list.ts';
import { rotate } from './rotate.ts';
import { update } from './update.ts';

/** `/api/v1/api-keys`: scoped keys, `keys.read` to read and `keys.write` to change. */
export const apiKeysApi = defineResource({
  base: '/api/v1/api-keys',
  area: 'keys',
  tag: { name: 'Management: API keys', description: 'Scoped API keys: grants, limits, rotation' },
  lock: 'api_keys',
  routes: [list, create, read, update, remove, rotate, endPrevious],
});
