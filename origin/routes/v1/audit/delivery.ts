import type { Hono } from 'hono';
import { configuredOutputs } from '../../../audit/delivery/outputs.ts';
import { deliveryStatus } from '../../../audit/delivery/status.ts';
import type { AppEnv } from '../../../http/context.ts';

/** GET /api/v1/audit/delivery: per output `delivered_seq`, `behind`, `last_error` and the delivering instance. */
export function registerDelivery(api: Hono<AppEnv>): void {
  api.get('/delivery', async (c) => {
    const deps = c.get('deps');
    return c.json(await deliveryStatus(deps.store.db, configuredOutputs(deps.env, deps.version)));
  });
}
