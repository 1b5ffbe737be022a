import { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { requireCapability } from '../require-capability.ts';
import { refuseManagedChanges } from '../config-lock.ts';
import { registerCreate } from './create.ts';
import { registerDelete } from './delete.ts';
import { registerGet } from './get.ts';
import { registerList } from './list.ts';
import { registerTest } from './test.ts';
import { registerUpdate } from './update.ts';

/** `/api/v1/destinations`: reading needs `destinations.read`, everything else (tests included) `destinations.write`. */
export const destinationsApi = new Hono<AppEnv>();
destinationsApi.use(requireCapability('destinations'));
destinationsApi.use(refuseManagedChanges('destinations', ['POST /test', 'POST /:name/test']));
registerList(destinationsApi);
registerCreate(destinationsApi);
registerTest(destinationsApi);
registerGet(destinationsApi);
registerUpdate(destinationsApi);
registerDelete(destinationsApi);
