import { defineResource } from '../contract.ts';
import { bundle } from './bundle.ts';
import { importRoute } from './import.ts';
import { list } from './list.ts';
import { postman } from './postman.ts';
import { rename } from './rename.ts';

/** `/api/v1/collections`. */
export const collectionsApi = defineResource({
  base: '/api/v1/collections',
  area: 'collections',
  tag: { name: 'Management: collections', description: 'Collections of saved queries' },
  lock: 'collections',
  routes: [list, importRoute, rename, postman, bundle],
});
