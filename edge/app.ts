import { Hono } from 'hono';
import { MIN_SECRET_LENGTH, REPLICA_PATH } from '../shared/edge/protocol.ts';
import { errorAnswer, newRequestId } from './answers.ts';
import { serveSavedQuery } from './cache/serve.ts';
import { forward } from './forward.ts';
import { type EdgeEnv, gate } from './gate.ts';
import { receivePush } from './push.ts';
import { timing } from './timing.ts';
import { traceEdge } from './trace.ts';

/**
 * The edge Worker's app: replica pushes from the origin; then, for every
 * other request, the gate (limits, caller) and either an answer from the
 * response cache (`GET /q/<name>`) or the origin's, forwarded.
 */
export function createEdgeApp(): Hono<EdgeEnv> {
  const app = new Hono<EdgeEnv>();
  app.use(timing);
  app.use(traceEdge);
  app.use(async (c, next) => {
    const secret = c.env.SLUICE_EDGE_SECRET;
    if (typeof secret === 'string' && secret.length >= MIN_SECRET_LENGTH && c.env.SLUICE_ORIGIN_URL) return next();
    // Without the shared secret the edge can neither trust pushes nor vouch for callers: it answers nothing.
    return errorAnswer(c.req.path, newRequestId(), 'edge_misconfigured', `The edge is not configured: set SLUICE_ORIGIN_URL and SLUICE_EDGE_SECRET (${MIN_SECRET_LENGTH}+ characters)`);
  });
  app.post(REPLICA_PATH, receivePush);
  app.use(gate);
  app.get('/q/:name', serveSavedQuery);
  app.all('*', (c) => forward(c));
  return app;
}
