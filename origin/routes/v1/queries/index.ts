import { defineResource } from '../contract.ts';
import { addVersionRoute } from './add-version.ts';
import { create } from './create.ts';
import { removeVersion } from './delete-version.ts';
import { remove } from './delete.ts';
import { flow } from './flow.ts';
import { readVersion } from './get-version.ts';
import { read } from './get.ts';
import { history } from './history.ts';
import { list } from './list.ts';
import { move } from './move.ts';
import { readParameterValues } from './parameter-values.ts';
import { publish } from './publish.ts';
import { unpublish } from './unpublish.ts';
import { updateVersion } from './update-version.ts';
import { validate } from './validate.ts';

/** `/api/v1/queries`. The fixed paths (`/validate`) come before `/:name`. */
export const queriesApi = defineResource({
  base: '/api/v1/queries',
  area: 'queries',
  tag: { name: 'Management: queries', description: 'Saved queries and their versions' },
  lock: 'queries',
  routes: [list, create, validate, read, move, remove, addVersionRoute, readVersion, updateVersion, removeVersion, readParameterValues, publish, unpublish, flow, history],
});
