import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Context, Hono } from 'hono';
import type { AppEnv } from '../http/context.ts';
import { projectPath } from '../paths.ts';

/**
 * The web console's Content-Security-Policy: its own script, style sheet and
 * API only. No inline script or style (the build writes none), no frames,
 * no forms posting elsewhere, no plugins.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface Built {
  index: string;
  assets: Map<string, { body: Uint8Array; type: string }>;
}

const TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };

let built: Built | null = null;

/**
 * dist/console as scripts/build-console.mjs left it (`npm start` and `npm run
 * build` make it), read once: a few tens of KiB held in memory. Null while
 * it is not built.
 */
function load(): Built | null {
  if (built) return built;
  const dir = projectPath('dist/console');
  try {
    const index = readFileSync(join(dir, 'index.html'), 'utf8');
    const assets = new Map<string, { body: Uint8Array; type: string }>();
    for (const name of readdirSync(join(dir, 'assets'))) {
      const type = TYPES[name.slice(name.lastIndexOf('.') + 1)];
      if (type) assets.set(name, { body: readFileSync(join(dir, 'assets', name)), type });
    }
    built = { index, assets };
    return built;
  } catch {
    return null;
  }
}

const NOT_BUILT = 'The web console is not built: run `npm run build` (or start the server with `npm start`, which builds it).\n';

/**
 * GET /console (public, docs/reference/console.md): the single-page app. Its
 * assets are named by content hash and cached for a year; the page itself is
 * revalidated each time so a new build is picked up. The app's own routes
 * live after `#`, so every other path under /console is the page too.
 */
export const consoleRoute = new Hono<AppEnv>()
  .get('/console/assets/:file', (c) => {
    const asset = load()?.assets.get(c.req.param('file'));
    if (!asset) return c.notFound();
    c.header('Content-Type', asset.type);
    c.header('Cache-Control', 'public, max-age=31536000, immutable');
    c.header('X-Content-Type-Options', 'nosniff');
    return c.body(asset.body as Uint8Array<ArrayBuffer>);
  })
  .get('/console', (c) => page(c))
  .get('/console/*', (c) => page(c));

function page(c: Context<AppEnv>) {
  c.header('Content-Security-Policy', CONSOLE_CSP);
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Referrer-Policy', 'no-referrer');
  c.header('X-Frame-Options', 'DENY');
  c.header('Cache-Control', 'no-cache');
  const app = load();
  if (!app) return c.text(NOT_BUILT, 503);
  return c.html(app.index);
}
