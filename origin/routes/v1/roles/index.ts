import { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { requireCapability } from '../require-capability.ts';
import { refuseManagedChanges } from '../config-lock.ts';
import { registerCreate } from './create.ts';
import { registerDelete } from './delete.ts';
import { registerGet } from './get.ts';
import { registerList } from './list.ts';
import { registerUpdate } from './update.ts';

/** `/api/v1/roles`: key grant templates, `roles.read` to read and `roles.write` to change. */
export const rolesApi = new Hono<AppEnv>();
rolesApi.use(requireCapability('roles'));
rolesApi.use(refuseManagedChanges('roles'));
registerList(rolesApi);
registerCreate(rolesApi);
registerGet(rolesApi);
registerUpdate(rolesApi);
registerDelete(rolesApi);
