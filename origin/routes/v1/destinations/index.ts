import { defineResource } from '../contract.ts';
import { create } from './create.ts';
import { remove } from './delete.ts';
import { read } from './get.ts';
import { list } from './list.ts';
import { probe, probeSaved } from './test.ts';
import { update } from './update.ts';

/** `/api/v1/destinations`: reading needs `destinations.read`, everything else (tests included) `destinations.write`. */
export const destinationsApi = defineResource({
  base: '/api/v1/destinations',
  area: 'destinations',
  tag: { name: 'Management: destinations', description: 'Where exports deliver: bucket prefixes (S3, GCS, R2) and local folders' },
  lock: 'destinations',
  routes: [list, create, probe, probeSaved, read, update, remove],
});
