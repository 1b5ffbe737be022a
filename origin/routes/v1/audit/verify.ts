import { verifyChain } from '../../../audit/verify.ts';
import { defineRoute } from '../contract.ts';

/** GET /api/v1/audit/verify: `{intact: true, first_seq, last_seq, keyed, ...}` or `{intact: false, break}`. */
export const verify = defineRoute({
  method: 'get',
  path: '/verify',
  id: 'verifyAudit',
  summary: 'Walk the hash chain from its anchor',
  handler: async (c) => {
    const deps = c.get('deps');
    return c.json(await verifyChain(deps.store.db, deps.env.SLUICE_AUDIT_KEY ?? null));
  },
});
