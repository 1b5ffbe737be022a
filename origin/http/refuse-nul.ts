import { createMiddleware } from 'hono/factory';
import { badRequest } from '../errors.ts';
import { NUL_PROBLEM, hasNul } from '../../shared/nul.ts';
import { RESERVED_NAMES } from '../../shared/parameters/index.ts';
import type { AppEnv } from './context.ts';

const OPTIONS: ReadonlySet<string> = new Set(RESERVED_NAMES);

/**
 * A NUL (`%00`) in the path or the query string is a 400 in the route's
 * error shape before any route runs: names and filters are looked up in the
 * store, whose text cannot hold one (shared/nul.ts). The arguments of `/q/`
 * that are parameters are left to the parameter rules, which name them in
 * `errors` with the rest of the request's problems; its request options
 * (`connection_name`...) are refused here. A raw NUL cannot reach us (Node's
 * parser refuses it in the request line), so a URL without `%00` passes at
 * the cost of one search.
 */
export const refuseNul = createMiddleware<AppEnv>(async (c, next) => {
  const url = c.req.url;
  if (!url.includes('%00')) return next();
  const mark = url.indexOf('?');
  if (url.slice(0, mark === -1 ? undefined : mark).includes('%00')) {
    throw badRequest(`The request path ${NUL_PROBLEM} (%00)`);
  }
  const parameters = c.req.path.startsWith('/q/');
  const errors: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(url.slice(mark + 1))) {
    if (parameters && !OPTIONS.has(name)) continue;
    if (hasNul(name) || hasNul(value)) errors[name] = NUL_PROBLEM;
  }
  const names = Object.keys(errors);
  if (names.length > 0) {
    throw badRequest(`Query-string argument${names.length > 1 ? 's' : ''} ${names.map((name) => JSON.stringify(name)).join(', ')} ${NUL_PROBLEM}`, { errors });
  }
  await next();
});
