import { describe, expect, it } from 'vitest';
import { parseRate } from '../../../shared/access/rate.ts';
import { BUCKETS, consume, isLive, slotWidth, stateLifetimeMs, type WindowDecision, type WindowState } from '../../../shared/access/window.ts';

const rate = (text: string) => parseRate(text)!;

/** Runs requests at the given times against one subject and returns each decision. */
function run(spec: ReturnType<typeof rate>, times: number[], start: WindowState = []): { decisions: WindowDecision[]; state: WindowState } {
  let state = start;
  const decisions = times.map((now) => {
    const result = consume(state, spec, now);
    state = result.state;
    return result.decision;
  });
  return { decisions, state };
}

const allowedCount = (decisions: WindowDecision[]) => decisions.filter((d) => d.allowed).length;

// A fixed point far from zero, aligned on a minute, as real clocks are.
const T0 = 1_750_000_020_000;

describe('consume', () => {
  it('allows N in a window and counts down remaining, then refuses with remaining 0', () => {
    const spec = rate('3/minute');
    const { decisions } = run(spec, [T0, T0 + 1, T0 + 2, T0 + 3]);
    expect(decisions.map((d) => [d.allowed, d.remaining, d.limit])).toEqual([
      [true, 2, 3],
      [true, 1, 3],
      [true, 0, 3],
      [false, 0, 3],
    ]);
    expect(decisions.slice(0, 3).every((d) => d.retryAfter === 0)).toBe(true);
  });

  it('never lets 2N through across a fixed-window boundary', () => {
    const spec = rate('10/minute');
    // Ten at the last moment of one calendar minute, ten at the first of the next.
    const late = Array.from({ length: 10 }, (_, i) => T0 + 59_990 + i);
    const early = Array.from({ length: 10 }, (_, i) => T0 + 60_000 + i);
    const { decisions } = run(spec, [...late, ...early]);
    expect(allowedCount(decisions.slice(0, 10))).toBe(10);
    expect(allowedCount(decisions.slice(10))).toBe(0);
  });

  it('lets requests in again once the window has passed, and not before', () => {
    const spec = rate('2/second');
    const first = run(spec, [T0, T0 + 100]);
    // Remembered for at least the window...
    expect(run(spec, [T0 + 999], first.state).decisions[0]!.allowed).toBe(false);
    // ...and at most the window plus one slot.
    const later = run(spec, [T0 + 1000 + slotWidth(spec), T0 + 1100 + slotWidth(spec)], first.state);
    expect(later.decisions.map((d) => d.allowed)).toEqual([true, true]);
  });

  it('does not count refused requests', () => {
    const spec = rate('1/second');
    const hammered = run(spec, [T0, ...Array.from({ length: 50 }, (_, i) => T0 + 10 + i * 19)]);
    expect(allowedCount(hammered.decisions)).toBe(1);
    expect(run(spec, [T0 + 1000 + slotWidth(spec)], hammered.state).decisions[0]!.allowed).toBe(true);
  });

  it('answers a retry-after after which a request is allowed, rounded up to whole seconds', () => {
    const spec = rate('5/minute');
    const times = [T0 + 1_000, T0 + 20_000, T0 + 20_500, T0 + 40_000, T0 + 41_000, T0 + 45_000];
    const { decisions, state } = run(spec, times);
    const refused = decisions[5]!;
    expect(refused.allowed).toBe(false);
    // The oldest request (T0 + 1 s, slot ending at T0 + 1.2 s) leaves at T0 + 61.2 s: 16.2 s after T0 + 45 s.
    expect(refused.retryAfter).toBe(17);
    expect(run(spec, [T0 + 45_000 + refused.retryAfter * 1000], state).decisions[0]!.allowed).toBe(true);
    expect(run(spec, [T0 + 61_199], state).decisions[0]!.allowed).toBe(false);
    expect(run(spec, [T0 + 61_200], state).decisions[0]!.allowed).toBe(true);
  });

  it('never answers a retry-after of 0 when refusing', () => {
    const spec = rate('1/second');
    const { decisions } = run(spec, [T0, T0 + 999]);
    expect(decisions[1]).toEqual({ allowed: false, limit: 1, remaining: 0, retryAfter: 1 });
  });

  it('after a lowered limit, waits until enough old slots leave', () => {
    // Counted under 10/minute, now checked against 4/minute: 7 of the 10 must leave before one more fits.
    const spec = rate('4/minute');
    const width = slotWidth(spec);
    const slot = (t: number) => Math.floor(t / width);
    const state: WindowState = [
      [slot(T0), 3],
      [slot(T0 + 10_000), 4],
      [slot(T0 + 20_000), 3],
    ];
    const { decisions } = run(spec, [T0 + 30_000], state);
    expect(decisions[0]!.allowed).toBe(false);
    // The second slot leaves one window plus one slot after its start.
    const leaves = (slot(T0 + 10_000) + BUCKETS + 1) * width;
    expect(decisions[0]!.retryAfter).toBe(Math.ceil((leaves - (T0 + 30_000)) / 1000));
  });

  it('keeps one entry per slot, oldest first, dropping slots that left the window', () => {
    const spec = rate('100/second');
    const width = slotWidth(spec);
    const first = Math.floor(T0 / width);
    const early = run(spec, [T0, T0 + 1, T0 + width, T0 + 2 * width + 1]);
    expect(early.state).toEqual([
      [first, 2],
      [first + 1, 1],
      [first + 2, 1],
    ]);
    const { state } = run(spec, [T0 + 1000 + width], early.state);
    expect(state).toEqual([
      [first + 1, 1],
      [first + 2, 1],
      [first + 101, 1],
    ]);
  });

  it('holds at most N in every span of the window length (random traffic, every period)', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    for (const text of ['3/second', '7/minute', '20/hour', '5/day']) {
      const spec = rate(text);
      const times: number[] = [];
      let t = T0;
      for (let i = 0; i < 3000; i++) {
        // Bursts and gaps: mostly close together, sometimes a good part of a window apart.
        t += random() < 0.9 ? Math.floor(random() * spec.windowMs * 0.02) : Math.floor(random() * spec.windowMs * 0.7);
        times.push(t);
      }
      const { decisions } = run(spec, times);
      const allowed = times.filter((_, i) => decisions[i]!.allowed);
      let oldest = 0;
      for (let newest = 0; newest < allowed.length; newest++) {
        while (allowed[oldest]! <= allowed[newest]! - spec.windowMs) oldest++;
        expect(newest - oldest + 1).toBeLessThanOrEqual(spec.limit);
      }
      // Strict but not starved: a refused request always waits less than one window plus a slot.
      for (const d of decisions) expect(d.retryAfter).toBeLessThanOrEqual(Math.ceil(stateLifetimeMs(spec) / 1000));
      expect(allowed.length).toBeGreaterThan(spec.limit);
    }
  });
});

describe('isLive', () => {
  it('is true while a slot still counts and false after the window plus one slot', () => {
    const spec = rate('10/minute');
    const { state } = run(spec, [T0 + 100]);
    expect(isLive(state, spec, T0 + 60_000)).toBe(true);
    expect(isLive(state, spec, T0 + stateLifetimeMs(spec))).toBe(false);
    expect(isLive([], spec, T0)).toBe(false);
  });
});
