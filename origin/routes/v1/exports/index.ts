import { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { requireCapability } from '../require-capability.ts';
import { refuseManagedChanges } from '../config-lock.ts';
import { registerCreate } from './create.ts';
import { registerDelete } from './delete.ts';
import { registerGet } from './get.ts';
import { registerList } from './list.ts';
import { registerRuns } from './runs.ts';
import { registerUpdate } from './update.ts';

/** `/api/v1/exports`: reading for every administrator, changes need `exports.write`, running `exports.run`. */
export const exportsApi = new Hono<AppEnv>();
exportsApi.use(requireCapability('exports', { 'POST /:name/runs': 'exports.run' }));
exportsApi.use(refuseManagedChanges('exports', ['POST /:name/runs']));
registerList(exportsApi);
registerCreate(exportsApi);
registerGet(exportsApi);
registerUpdate(exportsApi);
registerDelete(exportsApi);
registerRuns(exportsApi);
