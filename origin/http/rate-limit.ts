import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { getConnInfo } from '@hono/node-server/conninfo';
import { SluiceError } from '../errors.ts';
import type { AppEnv } from './context.ts';
import { requestSpanOf } from './request-scope.ts';
import { inSpan } from '../observability/tracing/span.ts';
import { errorResponse } from './error-handler.ts';
import { parseRate } from '../../shared/access/rate.ts';
import { KEY_RATE_LIMITED_MESSAGE, NEVER_LIMITED_PATHS, RATE_LIMITED_MESSAGE } from '../../shared/access/answers.ts';
import type { WindowDecision } from '../../shared/access/window.ts';

/** The client's address as origin/http/client-address.ts settled it (proxies trusted or not), else the socket peer. */
function clientAddress(c: Context<AppEnv>): string {
  return c.get('clientIp') || getConnInfo(c).remote.address || 'unknown';
}

/**
 * 429 in the spec's shape (`{error, retry_after}`, plus `code` and
 * `request_id` on management routes) with `Retry-After` in seconds.
 */
function refuse(c: Context<AppEnv>, message: string, decision: WindowDecision, headers: Record<string, string>): Response {
  const res = errorResponse(new SluiceError('rate_limited', message, { retry_after: decision.retryAfter }), c);
  for (const [name, value] of Object.entries(headers)) res.headers.set(name, value);
  return res;
}

/**
 * `SLUICE_RATE_LIMIT`, per client address, before the caller is identified:
 * requests with wrong keys count too, so guessing keys is limited. Every
 * answer carries `X-RateLimit-Limit` and `X-RateLimit-Remaining`.
 */
export const clientRateLimit = createMiddleware<AppEnv>(async (c, next) => {
  const { env, rateLimiter } = c.get('deps');
  const spec = env.SLUICE_RATE_LIMIT;
  // A request the edge forwarded was counted there already.
  if (!spec || NEVER_LIMITED_PATHS.has(c.req.path) || c.get('edge')?.clientLimited) return next();
  const decision = await inSpan(requestSpanOf(c), 'sluice.admission', { 'sluice.admission.check': 'client_rate_limit' }, () => rateLimiter.hit(`ip:${clientAddress(c)}`, spec));
  const headers = { 'X-RateLimit-Limit': String(decision.limit), 'X-RateLimit-Remaining': String(decision.remaining) };
  if (!decision.allowed) return refuse(c, RATE_LIMITED_MESSAGE, decision, headers);
  await next();
  for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
});

/**
 * A scoped key's own `rate_limit`, after the caller is identified, whether
 * or not `SLUICE_RATE_LIMIT` is set. Counted by key id, so both secrets of
 * a pending rotation share one count.
 */
export const keyRateLimit = createMiddleware<AppEnv>(async (c, next) => {
  const key = c.get('caller').key;
  const spec = key?.grants.rate_limit ? parseRate(key.grants.rate_limit) : null;
  if (!key || !spec || NEVER_LIMITED_PATHS.has(c.req.path) || c.get('edge')?.keyLimited) return next();
  const decision = await inSpan(requestSpanOf(c), 'sluice.admission', { 'sluice.admission.check': 'key_rate_limit' }, () => c.get('deps').rateLimiter.hit(`key:${key.id}`, spec));
  const headers = { 'X-RateLimit-Key-Limit': String(decision.limit), 'X-RateLimit-Key-Remaining': String(decision.remaining) };
  if (!decision.allowed) return refuse(c, KEY_RATE_LIMITED_MESSAGE, decision, headers);
  await next();
  for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
});
