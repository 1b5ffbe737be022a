import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { KEY_RATE_LIMITED_MESSAGE, NEVER_LIMITED_PATHS, RATE_LIMITED_MESSAGE, UNAUTHORIZED_MESSAGE } from '../shared/access/answers.ts';
import { ipMatches } from '../shared/access/cidr.ts';
import { isPublicPath } from '../shared/access/public-paths.ts';
import { type SpentBudget, budgetExhaustedExtras, budgetExhaustedMessage, spentBudgetHeaders } from '../shared/access/budget.ts';
import { type RateSpec, parseRate } from '../shared/access/rate.ts';
import { ADMIN_TOKEN_PREFIX, hashSecret, hexEqual } from '../shared/access/secret.ts';
import type { WindowDecision } from '../shared/access/window.ts';
import type { EdgeKey, EdgeSecret } from '../shared/edge/replica.ts';
import { addCors, errorAnswer, newRequestId } from './answers.ts';
import type { Lookup } from './replica/object.ts';
import type { EdgeBindings } from './env.ts';
import type { TraceContext } from '../shared/tracing/trace-context.ts';

/**
 * Who the caller is: the server key or an open server (`admin`), a scoped
 * key the edge verified (`key`), or someone only the origin can judge
 * (`origin`: an administrator token, no key, a key on a public endpoint,
 * or any request while the replica is not fresh).
 */
export type EdgeCaller = { kind: 'admin' } | { kind: 'key'; key: EdgeKey } | { kind: 'origin' };

/** What the gate settled for one request. */
export interface Gate {
  requestId: string;
  /** `CF-Connecting-IP`: set by Cloudflare on every request it delivers. */
  ip: string;
  /** SHA-256 hex of the `X-API-Key` sent; null without one. */
  credential: string | null;
  lookup: Lookup;
  caller: EdgeCaller;
  clientLimited: boolean;
  keyLimited: boolean;
  /** Rate-limit headers every answer carries. */
  headers: Headers;
}

export interface EdgeEnv {
  Bindings: EdgeBindings;
  /** `originMs`: how long a forwarded request waited for the origin's headers (edge/timing.ts). */
  Variables: { gate: Gate; originMs?: number; trace?: TraceContext };
}

const SAVED_QUERY = /^\/q\/([^/]+)$/;

/** The largest body the edge reads for its `dry_run` (a statement's request is small); a larger one is taken for a run. */
const PEEKED_BODY_BYTES = 1 << 20;

const TRUE_TEXT = new Set(['true', '1']);

/**
 * Whether a request asks for a dry run, as the origin reads it: `dry_run`
 * in the query string, else in a JSON body (read from a copy, so the body
 * still goes to the origin whole).
 */
async function asksDryRun(c: Context<EdgeEnv>): Promise<boolean> {
  const query = new URL(c.req.url).searchParams.get('dry_run');
  if (query !== null) return TRUE_TEXT.has(query);
  const length = Number(c.req.header('content-length') ?? NaN);
  if (c.req.method !== 'POST' || !(length <= PEEKED_BODY_BYTES) || !/json/i.test(c.req.header('content-type') ?? '')) return false;
  const body = (await c.req.raw.clone().json().catch(() => null)) as { dry_run?: unknown } | null;
  return body?.dry_run === true || (typeof body?.dry_run === 'string' && TRUE_TEXT.has(body.dry_run));
}

/** Requests that run a statement, which a spent budget refuses (a dry run goes on: it spends nothing). */
async function runsStatement(c: Context<EdgeEnv>): Promise<boolean> {
  const runs = SAVED_QUERY.test(c.req.path)
    ? c.req.method === 'GET' || c.req.method === 'POST'
    : c.req.method === 'POST' && (c.req.path === '/execute_sql' || c.req.path === '/execute_mongo' || c.req.path === '/results');
  return runs && !(await asksDryRun(c));
}

/** 429 for a key whose day budget the origin reported spent, as the origin answers it. */
function budgetExhausted(c: Context<EdgeEnv>, gate: Gate, spent: SpentBudget & { untilMs: number }, now: number): Response {
  const retryAfter = Math.max(1, Math.ceil((spent.untilMs - now) / 1000));
  const res = errorAnswer(c.req.path, gate.requestId, 'budget_exhausted', budgetExhaustedMessage(spent), budgetExhaustedExtras(spent, retryAfter));
  res.headers.set('Retry-After', String(retryAfter));
  for (const [name, value] of Object.entries(spentBudgetHeaders(spent.budget))) res.headers.set(name, value);
  return res;
}

/** The saved query a GET asks for, decoded as Hono decodes a path parameter; null otherwise. */
function savedQueryName(c: Context<EdgeEnv>): string | null {
  if (c.req.method !== 'GET') return null;
  const match = SAVED_QUERY.exec(c.req.path);
  if (!match) return null;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return null;
  }
}

/** An administrator token, in `Authorization: Bearer` or `X-API-Key`: only the origin holds tokens. */
const presentsAdminToken = (c: Context<EdgeEnv>, apiKey: string | undefined): boolean =>
  apiKey?.startsWith(ADMIN_TOKEN_PREFIX) === true || /^Bearer\s+slc_adm_/i.test(c.req.header('authorization') ?? '');

/**
 * A scoped key as the origin admits it (origin/http/caller.ts): active, not
 * past the end of its expiry day, by its current secret or its previous one
 * within the grace, from an allowed address.
 */
function keyAdmits(key: EdgeKey, secret: EdgeSecret, ip: string, now: number): boolean {
  if (!key.active) return false;
  if (key.expiresAtMs !== null && now >= key.expiresAtMs) return false;
  if (secret.previous && (secret.untilMs === null || secret.untilMs <= now)) return false;
  return key.grants.allowed_ips === null || ipMatches(ip, key.grants.allowed_ips);
}

async function limit(env: EdgeBindings, subject: string, spec: RateSpec): Promise<WindowDecision> {
  return env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(subject)).hit(spec.limit, spec.windowMs);
}

function tooMany(c: Context<EdgeEnv>, gate: Gate, message: string, decision: WindowDecision): Response {
  const res = errorAnswer(c.req.path, gate.requestId, 'rate_limited', message, { retry_after: decision.retryAfter });
  res.headers.set('Retry-After', String(decision.retryAfter));
  return res;
}

/**
 * Before every request but replica pushes, in the origin's order: the
 * server-wide limit per client address (wrong keys count too), then the
 * caller, then the key's own limit. While the replica is not fresh
 * (never pushed, or its lease lapsed) nothing is decided here: the request
 * goes to the origin, which decides it all.
 */
export const gate = createMiddleware<EdgeEnv>(async (c, next) => {
  const apiKey = c.req.header('x-api-key');
  const credential = apiKey === undefined ? null : await hashSecret(apiKey);
  const replica = c.env.REPLICA.get(c.env.REPLICA.idFromName('replica'));
  const lookup = await replica.lookup(credential, savedQueryName(c));
  const state: Gate = {
    requestId: newRequestId(),
    ip: c.req.header('cf-connecting-ip') ?? '',
    credential,
    lookup,
    caller: { kind: 'origin' },
    clientLimited: lookup.fresh,
    keyLimited: false,
    headers: new Headers(),
  };
  c.set('gate', state);
  if (!lookup.fresh) return next();
  // A browser's preflight to a listed origin is answered by the origin's CORS, before any limit or key.
  if (c.req.method === 'OPTIONS' && c.req.header('access-control-request-method') && c.req.header('origin') && lookup.settings.corsOrigins.length > 0) {
    state.clientLimited = false;
    return next();
  }

  const answer = (res: Response) => {
    for (const [name, value] of state.headers) res.headers.set(name, value);
    addCors(res.headers, lookup.settings.corsOrigins, c.req.header('origin') ?? null);
    return res;
  };
  const limited = !NEVER_LIMITED_PATHS.has(c.req.path);
  const serverSpec = lookup.settings.serverRateLimit ? parseRate(lookup.settings.serverRateLimit) : null;
  if (serverSpec && limited) {
    const decision = await limit(c.env, `ip:${state.ip}`, serverSpec);
    state.headers.set('X-RateLimit-Limit', String(decision.limit));
    state.headers.set('X-RateLimit-Remaining', String(decision.remaining));
    if (!decision.allowed) return answer(tooMany(c, state, RATE_LIMITED_MESSAGE, decision));
  }

  if (!lookup.settings.authenticationOn) state.caller = { kind: 'admin' };
  else if (apiKey !== undefined && !presentsAdminToken(c, apiKey)) {
    const { adminKeyHash } = lookup.settings;
    if (adminKeyHash !== null && hexEqual(credential!, adminKeyHash)) state.caller = { kind: 'admin' };
    else if (lookup.match && keyAdmits(lookup.match.key, lookup.match.secret, state.ip, Date.now())) state.caller = { kind: 'key', key: lookup.match.key };
    // A public endpoint answers an anonymous caller; a bearer may be a token only the origin knows.
    else if (!isPublicPath(c.req.path) && !c.req.header('authorization')) return answer(errorAnswer(c.req.path, state.requestId, 'unauthorized', UNAUTHORIZED_MESSAGE));
  }

  if (state.caller.kind === 'key') {
    state.keyLimited = true;
    const keySpec = state.caller.key.grants.rate_limit ? parseRate(state.caller.key.grants.rate_limit) : null;
    if (keySpec && limited) {
      const decision = await limit(c.env, `key:${state.caller.key.id}`, keySpec);
      state.headers.set('X-RateLimit-Key-Limit', String(decision.limit));
      state.headers.set('X-RateLimit-Key-Remaining', String(decision.remaining));
      if (!decision.allowed) return answer(tooMany(c, state, KEY_RATE_LIMITED_MESSAGE, decision));
    }
    const spent = state.caller.key.budgetSpent;
    const now = Date.now();
    if (spent && now < spent.untilMs && (await runsStatement(c))) return answer(budgetExhausted(c, state, spent, now));
  }
  await next();
  for (const [name, value] of state.headers) c.res.headers.set(name, value);
});
