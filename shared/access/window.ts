/**
 * Rate-limit window arithmetic, pure so the origin (memory), Redis (the same
 * steps in Lua, origin/access/rate-limit/redis-script.ts) and the edge
 * (a Durable Object per subject) all decide alike. ADR 0009.
 *
 * A window of length W is cut into BUCKETS slots of width w = W / BUCKETS.
 * A subject keeps the count of requests it was allowed in each slot (only
 * non-empty slots are kept). A request at time t is allowed when the slots
 * that overlap (t - W, t] hold fewer than N requests, the oldest of them
 * counted whole. Counting the oldest slot whole makes this strict: no span of
 * length W ever holds more than N allowed requests, at a boundary or
 * anywhere else; the price is that a request is remembered for between W
 * and W + w, so a refused caller may wait up to one slot width longer than
 * an exact log would make it.
 */
import type { RateSpec } from './rate.ts';

/** Slots per window: 10 ms for a second, 0.6 s for a minute, 36 s for an hour, 14.4 min for a day. */
export const BUCKETS = 100;

/** A subject's allowed requests: `[slot index, count]`, oldest first, only non-empty slots. */
export type WindowState = Array<[slot: number, count: number]>;

export interface WindowDecision {
  allowed: boolean;
  limit: number;
  /** Requests still allowed in the current window once this one is counted. */
  remaining: number;
  /** Whole seconds (>= 1) until a request would be allowed again; 0 when allowed. */
  retryAfter: number;
}

/** Slot width in milliseconds. */
export const slotWidth = (spec: Pick<RateSpec, 'windowMs'>): number => spec.windowMs / BUCKETS;

/** The oldest slot still overlapping the window that ends at `now`. */
const oldestLive = (spec: Pick<RateSpec, 'windowMs'>, now: number): number => Math.floor(now / slotWidth(spec)) - BUCKETS;

/** How long a subject's state matters after its newest request: the window plus one slot. */
export const stateLifetimeMs = (spec: Pick<RateSpec, 'windowMs'>): number => spec.windowMs + slotWidth(spec);

/**
 * Decides one request at `now` (milliseconds since the epoch) and returns the
 * state to keep: slots that left the window dropped, and the request counted
 * when allowed. Refused requests are not counted, so a caller who keeps
 * retrying is let in as soon as old requests age out.
 */
export function consume(state: WindowState, spec: Pick<RateSpec, 'limit' | 'windowMs'>, now: number): { state: WindowState; decision: WindowDecision } {
  const current = Math.floor(now / slotWidth(spec));
  const live = state.filter(([slot]) => slot >= current - BUCKETS);
  const used = live.reduce((sum, [, count]) => sum + count, 0);
  if (used < spec.limit) {
    const last = live[live.length - 1];
    const next: WindowState = last && last[0] === current ? [...live.slice(0, -1), [current, last[1] + 1]] : [...live, [current, 1]];
    return { state: next, decision: { allowed: true, limit: spec.limit, remaining: spec.limit - used - 1, retryAfter: 0 } };
  }
  return { state: live, decision: { allowed: false, limit: spec.limit, remaining: 0, retryAfter: retryAfter(live, used, spec, now) } };
}

/**
 * Seconds until enough of the oldest slots leave the window for one more
 * request to fit (more than one slot when the limit was lowered). Slot `s`
 * leaves once `now >= (s + BUCKETS + 1) * width`. Rounded up, never 0.
 */
function retryAfter(live: WindowState, used: number, spec: Pick<RateSpec, 'limit' | 'windowMs'>, now: number): number {
  const width = slotWidth(spec);
  let left = used;
  for (const [slot, count] of live) {
    left -= count;
    if (left < spec.limit) return Math.max(1, Math.ceil(((slot + BUCKETS + 1) * width - now) / 1000));
  }
  return 1;
}

/** Whether a state still holds anything that counts at `now` (an idle subject can be forgotten otherwise). */
export const isLive = (state: WindowState, spec: Pick<RateSpec, 'windowMs'>, now: number): boolean =>
  state.some(([slot]) => slot >= oldestLive(spec, now));
