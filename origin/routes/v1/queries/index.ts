import { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { requireAdmin } from '../require-admin.ts';
import { registerAddVersion } from './add-version.ts';
import { registerCreate } from './create.ts';
import { registerDeleteVersion } from './delete-version.ts';
import { registerDelete } from './delete.ts';
import { registerGetVersion } from './get-version.ts';
import { registerGet } from './get.ts';
import { registerList } from './list.ts';
import { registerMove } from './move.ts';
import { registerPublish } from './publish.ts';
import { registerUnpublish } from './unpublish.ts';
import { registerUpdateVersion } from './update-version.ts';

/** `/api/v1/queries`. The fixed paths come before `/:name`. */
export const queriesApi = new Hono<AppEnv>();
queriesApi.use(requireAdmin);
registerList(queriesApi);
registerCreate(queriesApi);
registerGet(queriesApi);
registerMove(queriesApi);
registerDelete(queriesApi);
registerAddVersion(queriesApi);
registerGetVersion(queriesApi);
registerUpdateVersion(queriesApi);
registerDeleteVersion(queriesApi);
registerPublish(queriesApi);
registerUnpublish(queriesApi);
