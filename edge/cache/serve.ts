import type { Context } from 'hono';
import { cacheKey } from '../../shared/cache-key.ts';
import { noneMatch } from '../../shared/etag.ts';
import { REPLAYED_HEADERS } from '../../shared/http/replayed-headers.ts';
import { addCors } from '../answers.ts';
import { forward } from '../forward.ts';
import type { EdgeEnv } from '../gate.ts';
import { cachePlan } from './plan.ts';

/** When a stored entry stops being served (ms): the Workers cache keeps whole seconds. */
const EXPIRES = 'x-sluice-expires';

const maxAge = (cacheControl: string | null): number => Number(/(?:^|,)\s*max-age=(\d+)/i.exec(cacheControl ?? '')?.[1] ?? 0);

/**
 * `GET /q/<name>` through the Workers cache: when `cachePlan` says the edge
 * may answer, a stored response is replayed without any request to the
 * origin (`X-Cache: HIT`, `ETag`, 304 on a matching `If-None-Match`);
 * otherwise the request goes to the origin, and a 200 it answers with an
 * `ETag` and a `max-age` is stored for that long. An entry's address holds
 * the key of shared/cache-key.ts (query, published version, connection,
 * resolved parameters, format, page), the `cache_ttl` and the cache
 * generation, so a new version, a new `cache_ttl` or an eviction on the
 * origin is in force at once.
 */
export async function serveSavedQuery(c: Context<EdgeEnv>): Promise<Response> {
  const plan = cachePlan(c);
  const { lookup } = c.get('gate');
  if (!plan || !lookup.fresh) return forward(c);
  const address = `${new URL(c.req.url).origin}/__sluice/cache/${lookup.cacheGeneration}/${plan.ttl}/${await cacheKey(plan.parts)}`;
  const cache = caches.default;

  const stored = await cache.match(address);
  const now = Date.now();
  if (stored && Number(stored.headers.get(EXPIRES)) > now) {
    return replay(c, stored, Math.floor((Number(stored.headers.get(EXPIRES)) - now) / 1000));
  }

  const res = await forward(c, { withoutConditionals: true });
  const etag = res.headers.get('etag');
  const seconds = maxAge(res.headers.get('cache-control'));
  if (res.status !== 200 || etag === null || seconds <= 0) return res;
  const body = await res.arrayBuffer();
  const kept = new Headers({ 'content-type': res.headers.get('content-type') ?? 'application/octet-stream', etag, 'cache-control': `public, max-age=${seconds}`, [EXPIRES]: String(now + seconds * 1000) });
  for (const name of REPLAYED_HEADERS) {
    const value = res.headers.get(name);
    if (value !== null) kept.set(name, value);
  }
  // Awaited, so the very next request finds it.
  await cache.put(address, new Response(body, { status: 200, headers: kept }));
  if (noneMatch(c.req.header('if-none-match'), etag)) return notModified(c, etag, res.headers.get('cache-control')!, res.headers.get('x-cache') ?? 'MISS', res.headers.get('x-request-id'));
  return new Response(body, res);
}

function replay(c: Context<EdgeEnv>, stored: Response, secondsLeft: number): Response {
  const etag = stored.headers.get('etag')!;
  const cacheControl = `private, max-age=${secondsLeft}`;
  if (noneMatch(c.req.header('if-none-match'), etag)) return notModified(c, etag, cacheControl, 'HIT', null);
  const headers = new Headers({ ETag: etag, 'Cache-Control': cacheControl, 'X-Cache': 'HIT', 'Content-Type': stored.headers.get('content-type')! });
  for (const name of REPLAYED_HEADERS) {
    const value = stored.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  return answer(c, new Response(stored.body, { status: 200, headers }), null);
}

function notModified(c: Context<EdgeEnv>, etag: string, cacheControl: string, outcome: string, requestId: string | null): Response {
  return answer(c, new Response(null, { status: 304, headers: { ETag: etag, 'Cache-Control': cacheControl, 'X-Cache': outcome } }), requestId);
}

/** An answer the edge made: its request id (or the origin's, for a response the origin made) and CORS. */
function answer(c: Context<EdgeEnv>, res: Response, requestId: string | null): Response {
  const { requestId: own, lookup } = c.get('gate');
  res.headers.set('X-Request-Id', requestId ?? own);
  if (lookup.fresh) addCors(res.headers, lookup.settings.corsOrigins, c.req.header('origin') ?? null);
  return res;
}
