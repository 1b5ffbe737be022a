import { Hono } from 'hono';
import type { AppEnv } from '../http/context.ts';
import { catalog } from '../services/discovery/catalog.ts';

/**
 * GET /catalog: `{queries, caller}`, the published saved queries this caller
 * reaches (by name, never SQL) and what it may do. Needs a key like every
 * non-public route (`identifyCaller`); it answers for whoever calls.
 */
export const catalogRoute = new Hono<AppEnv>().get('/catalog', async (c) => {
  c.header('Cache-Control', 'private, no-cache');
  return c.json(await catalog(c.get('deps'), c.get('caller')));
});
