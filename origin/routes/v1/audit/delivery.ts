import { configuredOutputs } from '../../../audit/delivery/outputs.ts';
import { deliveryStatus } from '../../../audit/delivery/status.ts';
import { defineRoute } from '../contract.ts';

/** GET /api/v1/audit/delivery: per output `delivered_seq`, `behind`, `last_error` and the delivering instance. */
export const delivery = defineRoute({
  method: 'get',
  path: '/delivery',
  id: 'getAuditDelivery',
  summary: 'Delivery progress per output',
  handler: async (c) => {
    const deps = c.get('deps');
    return c.json(await deliveryStatus(deps.store.db, configuredOutputs(deps.env, deps.version)));
  },
});
