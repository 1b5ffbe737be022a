import { createMiddleware } from 'hono/factory';
import type { AppEnv } from './context.ts';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Evicting the response cache (all, or one entry) evicts the edge's copies too. */
const CACHE_ENTRIES = /(?:^|\/)api\/v1\/cache\/entries(?:\/|$)/;

/**
 * Around every Management API call, when an edge is configured: once a call
 * that may change something succeeded (its transaction committed), the
 * replica is pushed to the edge and the answer waits for it (up to the
 * push's time limit). Every change of keys, roles, saved queries and
 * connections is made by such a call, so this is the one place all of them
 * pass; a call that changed nothing the edge holds pushes no entries.
 */
export const pushEdgeChanges = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  const sync = c.get('deps').edgeSync;
  if (!sync || READS.has(c.req.method) || c.res.status >= 400) return;
  await sync.changed({ evictCache: c.req.method === 'DELETE' && CACHE_ENTRIES.test(c.req.path) });
});
