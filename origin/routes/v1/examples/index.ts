import { defineResource } from '../contract.ts';
import { install } from './install.ts';
import { remove } from './remove.ts';
import { status } from './status.ts';

/**
 * `/api/v1/examples`: the tour over the bundled dataset. Reading its status
 * needs `queries.read` (it lists queries, keys and roles by name);
 * installing and removing need `examples.write`. The examples live in the
 * default workspace.
 */
export const examplesApi = defineResource({
  base: '/api/v1/examples',
  area: 'queries',
  tag: { name: 'Management: examples', description: 'A tour over the bundled dataset: saved queries, collections, a role and keys' },
  routes: [status, install, remove],
});
