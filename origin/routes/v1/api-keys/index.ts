import { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { requireCapability } from '../require-capability.ts';
import { refuseManagedChanges } from '../config-lock.ts';
import { registerCreate } from './create.ts';
import { registerDelete } from './delete.ts';
import { registerEndPrevious } from './end-previous.ts';
import { registerGet } from './get.ts';
import { registerList } from './list.ts';
import { registerRotate } from './rotate.ts';
import { registerUpdate } from './update.ts';

/** `/api/v1/api-keys`: scoped keys, `keys.read` to read and `keys.write` to change. */
export const apiKeysApi = new Hono<AppEnv>();
apiKeysApi.use(requireCapability('keys'));
apiKeysApi.use(refuseManagedChanges('api_keys'));
registerList(apiKeysApi);
registerCreate(apiKeysApi);
registerGet(apiKeysApi);
registerUpdate(apiKeysApi);
registerDelete(apiKeysApi);
registerRotate(apiKeysApi);
registerEndPrevious(apiKeysApi);
