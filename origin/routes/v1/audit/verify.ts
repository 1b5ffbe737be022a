import type { Hono } from 'hono';
import { verifyChain } from '../../../audit/verify.ts';
import type { AppEnv } from '../../../http/context.ts';

/** GET /api/v1/audit/verify: `{intact: true, first_seq, last_seq, keyed, ...}` or `{intact: false, break}`. */
export function registerVerify(api: Hono<AppEnv>): void {
  api.get('/verify', async (c) => {
    const deps = c.get('deps');
    return c.json(await verifyChain(deps.store.db, deps.env.SLUICE_AUDIT_KEY ?? null));
  });
}
