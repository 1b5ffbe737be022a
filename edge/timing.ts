import { createMiddleware } from 'hono/factory';
import type { EdgeEnv } from './gate.ts';

/**
 * `Server-Timing` on every answer, tracing or not (docs/reference/edge.md):
 * `edge;dur` the milliseconds from the request's arrival to its answer's
 * headers, and `origin;dur` the share of them spent waiting for the
 * origin's headers when the request was forwarded. A Worker's clock moves
 * only across I/O, so the edge's own computing between two awaits counts as
 * nothing; its waits are what these show.
 */
export const timing = createMiddleware<EdgeEnv>(async (c, next) => {
  const started = Date.now();
  await next();
  const originMs = c.get('originMs');
  c.res.headers.append('Server-Timing', `edge;dur=${Date.now() - started}${originMs === undefined ? '' : `, origin;dur=${originMs}`}`);
});
