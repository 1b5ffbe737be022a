import { defineResource } from '../contract.ts';
import { forget } from './forget.ts';
import { list } from './list.ts';

/** `/api/v1/history`: run history across queries (ad-hoc runs have query null). */
export const historyApi = defineResource({
  base: '/api/v1/history',
  area: 'history',
  tag: { name: 'Management: history', description: 'Run history across queries' },
  routes: [list, forget],
});
