import { Hono } from 'hono';
import type { AppEnv } from '../http/context.ts';
import { DOCS_CSP, DOCS_HTML } from '../services/discovery/docs-page.ts';

/** GET /docs (public): the interactive reference page, under a Content-Security-Policy allowing only its own script and style. */
export const docsRoute = new Hono<AppEnv>().get('/docs', (c) => {
  c.header('Content-Security-Policy', DOCS_CSP);
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Referrer-Policy', 'no-referrer');
  c.header('Cache-Control', 'no-cache');
  return c.html(DOCS_HTML);
});
