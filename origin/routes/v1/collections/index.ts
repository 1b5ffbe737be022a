import { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { requireCapability } from '../require-capability.ts';
import { refuseManagedChanges } from '../config-lock.ts';
import { registerBundle } from './bundle.ts';
import { registerImport } from './import.ts';
import { registerList } from './list.ts';
import { registerPostman } from './postman.ts';
import { registerRename } from './rename.ts';

/** `/api/v1/collections`. */
export const collectionsApi = new Hono<AppEnv>();
collectionsApi.use(requireCapability('collections'));
// An import names no collection in its path; it refuses a locked managed query itself.
collectionsApi.use(refuseManagedChanges('collections', ['POST /import']));
registerList(collectionsApi);
registerImport(collectionsApi);
registerRename(collectionsApi);
registerPostman(collectionsApi);
registerBundle(collectionsApi);
