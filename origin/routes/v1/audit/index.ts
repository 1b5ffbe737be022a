import { defineResource } from '../contract.ts';
import { delivery } from './delivery.ts';
import { list } from './list.ts';
import { verify } from './verify.ts';

/** `/api/v1/audit`: the hash-chained audit log, its verification and its delivery to outputs (`audit.read`). */
export const auditApi = defineResource({
  base: '/api/v1/audit',
  area: 'audit',
  tag: { name: 'Management: audit', description: 'The hash-chained audit log, its verification and delivery' },
  routes: [list, verify, delivery],
});
