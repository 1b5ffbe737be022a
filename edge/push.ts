import type { Context } from 'hono';
import type { ReplicaPush } from '../shared/edge/replica.ts';
import { SIGNATURE_HEADER, fresh, verify } from '../shared/edge/protocol.ts';
import type { EdgeBindings } from './env.ts';

/**
 * `POST /__sluice/edge/replica`: a push from the origin
 * (origin/edge-sync/sync.ts), applied only when its HMAC verifies under
 * `SLUICE_EDGE_SECRET` and its timestamp is fresh; the replica object then
 * refuses it unless its sequence number is new (replays and reordering).
 */
export async function receivePush(c: Context<{ Bindings: EdgeBindings }>): Promise<Response> {
  const body = await c.req.text();
  if (!(await verify(c.env.SLUICE_EDGE_SECRET, 'replica', body, c.req.header(SIGNATURE_HEADER) ?? ''))) {
    return c.json({ error: 'Invalid signature' }, 401);
  }
  let push: ReplicaPush;
  try {
    push = JSON.parse(body) as ReplicaPush;
  } catch {
    return c.json({ error: 'Invalid JSON' }, 400);
  }
  if (!fresh(push.ts, Date.now())) return c.json({ error: 'Stale or future timestamp' }, 401);
  const result = await c.env.REPLICA.get(c.env.REPLICA.idFromName('replica')).apply(push);
  return c.json({ seq: result.seq }, result.status);
}
