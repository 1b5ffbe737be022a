import { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { requireCapability } from '../require-capability.ts';
import { refuseManagedChanges } from '../config-lock.ts';
import { registerCreate } from './create.ts';
import { registerDatabases } from './databases.ts';
import { registerDelete } from './delete.ts';
import { registerDescriptions } from './descriptions.ts';
import { registerDeleted } from './deleted.ts';
import { registerGet } from './get.ts';
import { registerList } from './list.ts';
import { registerSchema } from './schema.ts';
import { registerTest } from './test.ts';
import { registerUpdate } from './update.ts';

/** `/api/v1/connections`. The fixed paths come before `/:name` (a connection may not be named `deleted`). */
export const connectionsApi = new Hono<AppEnv>();
connectionsApi.use(requireCapability('connections'));
connectionsApi.use(refuseManagedChanges('connections', ['POST /test', 'POST /databases']));
registerList(connectionsApi);
registerCreate(connectionsApi);
registerDeleted(connectionsApi);
registerTest(connectionsApi);
registerDatabases(connectionsApi);
registerGet(connectionsApi);
registerUpdate(connectionsApi);
registerDelete(connectionsApi);
registerSchema(connectionsApi);
registerDescriptions(connectionsApi);
