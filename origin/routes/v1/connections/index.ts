import { defineResource } from '../contract.ts';
import { create } from './create.ts';
import { databases } from './databases.ts';
import { remove } from './delete.ts';
import { deleted } from './deleted.ts';
import { importComments, patchDescriptions, readDescriptions } from './descriptions.ts';
import { read } from './get.ts';
import { list } from './list.ts';
import { schema } from './schema.ts';
import { probe } from './test.ts';
import { update } from './update.ts';

/** `/api/v1/connections`. The fixed paths come before `/:name` (a connection may not be named `deleted`). */
export const connectionsApi = defineResource({
  base: '/api/v1/connections',
  area: 'connections',
  tag: { name: 'Management: connections', description: 'Connections: create, read, change, delete, test, browse' },
  lock: 'connections',
  routes: [list, create, deleted, probe, databases, read, update, remove, schema, readDescriptions, patchDescriptions, importComments],
});
