import { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { requireCapability } from '../require-capability.ts';
import { registerInstall } from './install.ts';
import { registerRemove } from './remove.ts';
import { registerStatus } from './status.ts';

/**
 * `/api/v1/examples`: the tour over the bundled dataset. Reading its status
 * needs `queries.read` (it lists queries, keys and roles by name);
 * installing and removing need `examples.write`. The examples live in the
 * default workspace.
 */
export const examplesApi = new Hono<AppEnv>();
examplesApi.use(requireCapability('queries', { 'POST /': 'examples.write', 'DELETE /': 'examples.write' }));
registerStatus(examplesApi);
registerInstall(examplesApi);
registerRemove(examplesApi);
