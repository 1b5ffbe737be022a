import { createMiddleware } from 'hono/factory';
import { unauthorized } from './caller.ts';
import type { AppEnv } from './context.ts';
import { ASSERTION_HEADER, verifyAssertion } from '../../shared/edge/protocol.ts';
import { requestHeader } from './request-header.ts';

/**
 * The caller assertion of a request the edge forwarded (shared/edge/protocol.ts).
 * Believed only when `SLUICE_EDGE_SECRET` is set here, its HMAC verifies,
 * its timestamp is fresh and it names this very method and target; then the
 * client address is the one the edge saw, and the credential the client
 * presented there (as its SHA-256) is identified by `identifyCaller` against
 * this origin's own directory, exactly as a key sent directly. A request
 * carrying an assertion that fails is refused with the one 401. Without the
 * secret the header is ignored: it can never stand for a caller.
 */
export const edgeAssertion = createMiddleware<AppEnv>(async (c, next) => {
  const header = requestHeader(c, ASSERTION_HEADER);
  const secret = c.get('deps').env.SLUICE_EDGE_SECRET;
  if (header === undefined || !secret) return next();
  const url = new URL(c.req.url);
  const assertion = await verifyAssertion(secret, header, { method: c.req.method, target: url.pathname + url.search }, Date.now());
  if (!assertion) throw unauthorized();
  c.set('edge', assertion);
  c.set('clientIp', assertion.ip);
  await next();
});
