import { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { requireCapability } from '../require-capability.ts';
import { registerApply } from './apply.ts';
import { registerDiff } from './diff.ts';
import { registerSnapshot } from './snapshot.ts';
import { registerManaged } from './managed.ts';

/**
 * `/api/v1/config`: diffing and reading what is managed need `config.read`;
 * applying, and the snapshot (GET /export, which shows keys' secret hashes), `config.apply`
 * (owners).
 */
export const configApi = new Hono<AppEnv>();
configApi.use(requireCapability('config', { 'POST /diff': 'config.read', 'POST /apply': 'config.apply', 'GET /export': 'config.apply' }));
registerDiff(configApi);
registerApply(configApi);
registerManaged(configApi);
registerSnapshot(configApi);
