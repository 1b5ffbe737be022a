import { readZoneName } from './zone-name.ts';

/**
 * Every timestamp the server returns is in the server's time zone (TZ, else the
 * system zone): the process's own local zone, whose offset at an instant
 * `Date#getTimezoneOffset` gives from ICU's rules, as Intl.DateTimeFormat's
 * `longOffset` would (the same data, compared across zones and centuries by
 * test/unit/time-zone.test.ts) without loading ICU's locale data
 * (zone-name.ts). Offsets are still cached per quarter hour of epoch time:
 * a map lookup per zoned value costs less than a Date.
 */

const zoneName = readZoneName();

/** The IANA name of the server's zone, or null when it has none. */
export function serverTimeZone(): string | null {
  return zoneName;
}

const QUARTER_HOUR_MS = 15 * 60 * 1000;
const offsetCache = new Map<number, number>();

/** Offset from UTC in minutes at the given instant (milliseconds since the epoch). */
export function offsetMinutesAt(epochMs: number): number {
  // Zone transitions fall on quarter hours, so one lookup serves the whole bucket.
  const bucket = Math.floor(epochMs / QUARTER_HOUR_MS);
  const cached = offsetCache.get(bucket);
  if (cached !== undefined) return cached;
  const minutes = quarterHourOffset(bucket);
  if (offsetCache.size > 100_000) offsetCache.clear();
  offsetCache.set(bucket, minutes);
  return minutes;
}

/**
 * `offsetMinutesAt` without the cache: for a one-off sweep over centuries
 * (zone-offsets.ts), which would otherwise leave ~100k entries in it for good.
 */
export function uncachedOffsetMinutesAt(epochMs: number): number {
  return quarterHourOffset(Math.floor(epochMs / QUARTER_HOUR_MS));
}

/** Whole minutes: V8 drops an offset's seconds toward zero, as the `longOffset` text does (Paris before 1911, +00:09:21, is +9). */
function quarterHourOffset(bucket: number): number {
  return -new Date(bucket * QUARTER_HOUR_MS).getTimezoneOffset() || 0;
}

export function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)}`;
}

/** The server's current UTC offset, `+01:00`. */
export function currentUtcOffset(): string {
  return formatOffset(offsetMinutesAt(Date.now()));
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));
const pad3 = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : String(n));

function formatLocal(localMs: number, fractionDigits: string, offsetMinutes: number): string {
  const d = new Date(localMs);
  const year = d.getUTCFullYear();
  const yyyy = year >= 0 && year <= 9999 ? String(year).padStart(4, '0') : (year < 0 ? '-' : '+') + String(Math.abs(year)).padStart(6, '0');
  return (
    `${yyyy}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}` +
    `T${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}` +
    fractionDigits +
    formatOffset(offsetMinutes)
  );
}

/** ISO 8601 in the server's zone with its offset; sub-second digits only when present. */
export function formatInstantMicros(epochMicros: bigint): string {
  // Floor division, so instants before 1970 keep a positive sub-second part.
  const ms = Number(epochMicros / 1000n) - (epochMicros % 1000n < 0n ? 1 : 0);
  const micros = Number(((epochMicros % 1_000_000n) + 1_000_000n) % 1_000_000n);
  const offset = offsetMinutesAt(ms);
  const fraction = micros === 0 ? '' : `.${String(micros).padStart(6, '0').replace(/0+$/, '')}`;
  return formatLocal(ms + offset * 60_000, fraction, offset);
}

/** A stored timestamp (created_at and the like) in the server's zone, millisecond precision. */
export function formatDate(date: Date): string {
  const ms = date.getTime();
  const offset = offsetMinutesAt(ms);
  return formatLocal(ms + offset * 60_000, `.${pad3(((ms % 1000) + 1000) % 1000)}`, offset);
}
