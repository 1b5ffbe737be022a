/**
 * Parsing the value model's texts into parquet's physical values: exact
 * decimals as unscaled bigints, dates as days, times and timestamps as
 * microseconds. Every function returns null when the text cannot be
 * represented exactly (the caller decides what that means).
 */
import { daysFromCivil } from '../drivers/temporal.ts';

export interface ParsedDecimal {
  negative: boolean;
  /** All digits, leading zeros removed (`''` for zero). */
  digits: string;
  /** Digits after the point; never negative. */
  scale: number;
}

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

export function parseDecimal(text: string): ParsedDecimal | null {
  const m = DECIMAL.exec(text);
  if (!m || !(m[2] || m[3])) return null;
  const exponent = m[4] === undefined ? 0 : Number(m[4]);
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 1000) return null;
  let digits = (m[2] ?? '') + (m[3] ?? '');
  let scale = (m[3] ?? '').length - exponent;
  if (scale < 0) {
    digits += '0'.repeat(-scale);
    scale = 0;
  }
  return { negative: m[1] === '-', digits: digits.replace(/^0+/, ''), scale };
}

/** Digits before the point. */
export function integerDigits(d: ParsedDecimal): number {
  return Math.max(0, d.digits.length - d.scale);
}

/** The unscaled value at `scale`, or null when it would lose digits or need more than `precision`. */
export function unscaled(d: ParsedDecimal, precision: number, scale: number): bigint | null {
  let digits = d.digits;
  if (d.scale > scale) {
    const dropped = digits.slice(Math.max(0, digits.length - (d.scale - scale)));
    if (/[1-9]/.test(dropped)) return null;
    digits = digits.slice(0, Math.max(0, digits.length - (d.scale - scale)));
  } else if (d.scale < scale && digits !== '') {
    digits += '0'.repeat(scale - d.scale);
  }
  digits = digits.replace(/^0+/, '');
  if (digits.length > precision) return null;
  if (digits === '') return 0n;
  return BigInt(d.negative ? `-${digits}` : digits);
}

function validDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return day <= lengths[month - 1];
}

const DATE = /^([+-]?\d{4,6})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^([+-]?\d{4,6})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/;
const TIME = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/;

/** Days since the epoch of `YYYY-MM-DD`, or null. */
export function dateDays(text: string): number | null {
  const m = DATE.exec(text);
  if (!m || !validDate(+m[1], +m[2], +m[3])) return null;
  return daysFromCivil(+m[1], +m[2], +m[3]);
}

/** Microseconds from a fraction of up to 9 digits; null when it has sub-microsecond digits. */
function fractionMicros(fraction: string | undefined): number | null {
  if (!fraction) return 0;
  if (fraction.length > 6 && /[1-9]/.test(fraction.slice(6))) return null;
  return Number(fraction.slice(0, 6).padEnd(6, '0'));
}

function clockMicros(h: string, m: string, s: string, fraction: string | undefined): number | null {
  const micros = fractionMicros(fraction);
  if (micros === null || +m > 59 || +s > 60) return null;
  return ((+h * 60 + +m) * 60 + +s) * 1_000_000 + micros;
}

/** Microseconds since the epoch of a zone-less `YYYY-MM-DDTHH:MM:SS[.ffffff]`, or null. */
export function timestampMicros(text: string): bigint | null {
  const m = TIMESTAMP.exec(text);
  if (!m || !validDate(+m[1], +m[2], +m[3]) || +m[4] > 23) return null;
  const clock = clockMicros(m[4], m[5], m[6], m[7]);
  if (clock === null) return null;
  return BigInt(daysFromCivil(+m[1], +m[2], +m[3])) * 86_400_000_000n + BigInt(clock);
}

/** Microseconds since midnight of `HH:MM:SS[.ffffff]` (no offset; `24:00:00` allowed), or null. */
export function timeMicros(text: string): bigint | null {
  const m = TIME.exec(text);
  if (!m) return null;
  const clock = clockMicros(m[1], m[2], m[3], m[4]);
  if (clock === null || clock > 86_400_000_000) return null;
  return BigInt(clock);
}
