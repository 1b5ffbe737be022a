import { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { requireCapability } from '../require-capability.ts';
import { registerGet } from './get.ts';

/**
 * `/api/v1/settings`: the server's environment settings, read-only
 * (`settings.read`). The guard covers this path only: `/settings/rekey` is
 * its own router with its own capability.
 */
export const settingsApi = new Hono<AppEnv>();
settingsApi.use('/', requireCapability('settings'));
registerGet(settingsApi);
