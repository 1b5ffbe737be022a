/**
 * The server zone's UTC offsets as the JS renderer (`time.ts`) applies them,
 * as a list of change points, so an engine can render zoned instants exactly
 * as `formatInstantMicros` does without consulting its own time-zone data
 * (which may be a different tzdata release).
 *
 * `offsetMinutesAt` gives every instant the offset, in whole minutes, at the
 * start of its quarter hour. The list is found by sampling that function
 * (daily until 2040, weekly after: the final rules of a zone never change
 * twice within a week) and bisecting each change down to its quarter hour.
 * Before the first sample the offset is the first one (local mean time: no
 * zone changes before 1700). From 2040 on only a zone's final rule applies,
 * and calendar rules repeat every 400 Gregorian years (146,097 days, a whole
 * number of weeks), so a later instant takes the offset of the same moment
 * 400·k years earlier, inside the sampled window [2040, 2440).
 */
import { serverTimeZone, uncachedOffsetMinutesAt as offsetMinutesAt } from '../time.ts';

const QUARTER_HOUR_MS = 900_000;
const DAY_MS = 86_400_000;
const START_MS = Date.UTC(1700, 0, 1);
const RULES_FROM_MS = Date.UTC(2040, 0, 1);
/** 400 Gregorian years in milliseconds. */
export const CYCLE_MS = 146_097 * DAY_MS;
export const CYCLE_END_MS = RULES_FROM_MS + CYCLE_MS;

export interface ZoneOffsets {
  zone: string | null;
  /** Where the sampling starts (1700): nothing changes before it. */
  startMs: number;
  /** Offset in minutes before the first change point. */
  initial: number;
  /** Change points: from `atMs` (a quarter-hour start) on, the offset is `minutes`. Ascending. */
  changes: { atMs: number; minutes: number }[];
}

/** The first quarter hour in (lo, hi] whose offset differs from lo's. */
function bisect(lo: number, hi: number, before: number): number {
  while (hi - lo > QUARTER_HOUR_MS) {
    const mid = lo + Math.floor((hi - lo) / 2 / QUARTER_HOUR_MS) * QUARTER_HOUR_MS;
    if (offsetMinutesAt(mid) === before) lo = mid;
    else hi = mid;
  }
  return hi;
}

function scan(): ZoneOffsets {
  const initial = offsetMinutesAt(START_MS);
  const changes: ZoneOffsets['changes'] = [];
  let previousMs = START_MS;
  let previous = initial;
  while (previousMs < CYCLE_END_MS) {
    const step = previousMs < RULES_FROM_MS ? DAY_MS : 7 * DAY_MS;
    const ms = Math.min(previousMs + step, CYCLE_END_MS);
    const offset = offsetMinutesAt(ms);
    if (offset !== previous) {
      const atMs = bisect(previousMs, ms, previous);
      changes.push({ atMs, minutes: offsetMinutesAt(atMs) });
      // A change and its undoing inside one step would hide here: re-check the rest of the step.
      previous = offsetMinutesAt(atMs);
      previousMs = atMs;
      continue;
    }
    previousMs = ms;
  }
  return { zone: serverTimeZone(), startMs: START_MS, initial, changes };
}

let cached: ZoneOffsets | null = null;

/** The server zone's offsets (computed once per process, ~0.3 s). */
export function zoneOffsets(): ZoneOffsets {
  cached ??= scan();
  return cached;
}
