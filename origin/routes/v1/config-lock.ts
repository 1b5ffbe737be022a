import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../../http/context.ts';
import type { AppliedKind } from '../../services/config/kinds.ts';
import { assertCollectionNotManaged, assertNotManaged } from '../../services/config/managed.ts';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * With SLUICE_CONFIG_LOCKED, a router's changes to an object a configuration
 * file manages answer 409 `config_managed`: every method but reads, on
 * `/<name>` and below, except the routes in `except` (`'POST /:name/runs'`:
 * running an export, probing a destination... change nothing). A create
 * names no existing object, so it passes; an unmanaged object passes. A
 * collection is refused when a managed object names it.
 */
export function refuseManagedChanges(kind: AppliedKind | 'collections', except: string[] = []) {
  const allowed = except.map((route) => {
    const [method, path] = route.split(' ') as [string, string];
    return { method, pattern: new RegExp(`^${path.replace(/:[A-Za-z_]\w*/g, '[^/]+')}/?$`) };
  });
  return createMiddleware<AppEnv>(async (c, next) => {
    const deps = c.get('deps');
    if (!deps.env.SLUICE_CONFIG_LOCKED || READS.has(c.req.method)) return next();
    const base = c.req.routePath.replace(/\/\*$/, '');
    const relative = c.req.path.slice(base.length) || '/';
    const segment = /^\/([^/]+)/.exec(relative)?.[1];
    if (segment === undefined || allowed.some((a) => a.method === c.req.method && a.pattern.test(relative))) return next();
    let name: string;
    try {
      name = decodeURIComponent(segment);
    } catch {
      return next();
    }
    // A collection is no object of a file: renaming one changes the queries, keys and roles it names.
    await (kind === 'collections' ? assertCollectionNotManaged(deps, name) : assertNotManaged(deps, kind, name));
    return next();
  });
}
