import type { Context } from 'hono';
import { matchedRoutes } from 'hono/route';

/** The `endpoint` label of a request no route answers: raw paths would be unbounded. */
export const UNMATCHED = 'unmatched';

/**
 * The route template a request matched (`/q/:name`, `/api/v1/queries/:name`),
 * never its raw path, so the metric's label values stay few. It is the last
 * matched route registered for a method (the handler); middleware registered
 * with `use` matches every method, with a `*` path. Found whether or not the
 * handler ran (a 401 from the caller check still counts against its route).
 */
export function endpointOf(c: Context): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const route = routes[i];
    if (route.method !== 'ALL' && !route.path.endsWith('*')) return route.path;
  }
  return UNMATCHED;
}
