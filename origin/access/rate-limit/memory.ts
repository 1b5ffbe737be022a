import type { RateSpec } from '../../../shared/access/rate.ts';
import { consume, isLive, type WindowDecision, type WindowState } from '../../../shared/access/window.ts';
import type { RateLimiter } from './limiter.ts';

interface Subject {
  state: WindowState;
  windowMs: number;
}

export interface MemoryRateLimiterOptions {
  /** Subjects kept at most; past it the least recently seen is forgotten. */
  maxSubjects?: number;
  /** Idle subjects are swept at most this often. */
  sweepIntervalMs?: number;
  now?: () => number;
}

/**
 * Counts in this process only: exact for one origin, since each decision
 * runs to completion before the next. Memory stays bounded: a subject whose
 * requests have all left its window is dropped by a sweep, and past
 * `maxSubjects` the least recently seen subject is forgotten (an address
 * flood cannot grow the map without end).
 */
export class MemoryRateLimiter implements RateLimiter {
  readonly kind = 'memory';
  private readonly subjects = new Map<string, Subject>();
  private readonly maxSubjects: number;
  private readonly sweepIntervalMs: number;
  private readonly now: () => number;
  private lastSweep: number;

  constructor(options: MemoryRateLimiterOptions = {}) {
    this.maxSubjects = options.maxSubjects ?? 100_000;
    this.sweepIntervalMs = options.sweepIntervalMs ?? 10_000;
    this.now = options.now ?? Date.now;
    this.lastSweep = this.now();
  }

  /** How many subjects are held (for tests of the memory bound). */
  get size(): number {
    return this.subjects.size;
  }

  async hit(subject: string, spec: RateSpec): Promise<WindowDecision> {
    const now = this.now();
    if (now - this.lastSweep >= this.sweepIntervalMs) this.sweep(now);
    const key = `${subject}|${spec.windowMs}`;
    const held = this.subjects.get(key);
    const { state, decision } = consume(held?.state ?? [], spec, now);
    // Re-inserted so the map's order is least recently seen first.
    this.subjects.delete(key);
    if (state.length > 0) this.subjects.set(key, { state, windowMs: spec.windowMs });
    while (this.subjects.size > this.maxSubjects) this.subjects.delete(this.subjects.keys().next().value!);
    return decision;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, subject] of this.subjects) {
      if (!isLive(subject.state, subject, now)) this.subjects.delete(key);
    }
  }

  async close(): Promise<void> {
    this.subjects.clear();
  }
}
