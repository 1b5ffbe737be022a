import { defineResource } from '../contract.ts';
import { clear } from './clear.ts';
import { evict } from './delete.ts';
import { read } from './get.ts';
import { list } from './list.ts';

/** `/api/v1/cache`: the saved-query response cache. Evictions are not audited (spec). */
export const cacheApi = defineResource({
  base: '/api/v1/cache',
  area: 'cache',
  tag: { name: 'Management: cache', description: 'The saved-query response cache' },
  routes: [list, clear, read, evict],
});
