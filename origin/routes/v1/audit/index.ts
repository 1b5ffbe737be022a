import { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { requireCapability } from '../require-capability.ts';
import { registerDelivery } from './delivery.ts';
import { registerList } from './list.ts';
import { registerVerify } from './verify.ts';

/** `/api/v1/audit`: the hash-chained audit log, its verification and its delivery to outputs (`audit.read`). */
export const auditApi = new Hono<AppEnv>();
auditApi.use(requireCapability('audit'));
registerList(auditApi);
registerVerify(auditApi);
registerDelivery(auditApi);
