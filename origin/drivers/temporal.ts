/**
 * Date and time text as databases write it, turned into the value model's
 * forms exactly: no value passes through a JS Date (milliseconds only).
 */

const MICROS_PER_SECOND = 1_000_000n;
const MICROS_PER_DAY = 86_400_000_000n;

/** Days since 1970-01-01 of a proleptic Gregorian date (any year, astronomical numbering; H. Hinnant's days_from_civil). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The civil date of a day count since 1970-01-01. */
export function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: era * 400 + yoe + (month <= 2 ? 1 : 0), month, day };
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

function yearText(year: number): string {
  return year < 0 ? `-${String(-year).padStart(4, '0')}` : String(year).padStart(4, '0');
}

/** `.123` from microseconds, trailing zeros dropped; empty for whole seconds. */
function fractionText(micros: number): string {
  return micros === 0 ? '' : `.${String(micros).padStart(6, '0').replace(/0+$/, '')}`;
}

/** `.5` from `.500000`; empty from `.000` or nothing. */
function trimFraction(fraction: string | undefined): string {
  if (!fraction) return '';
  const digits = fraction.slice(1, 7).replace(/0+$/, '');
  return digits ? `.${digits}` : '';
}

function fractionMicros(fraction: string | undefined): bigint {
  return fraction ? BigInt(fraction.slice(1, 7).padEnd(6, '0')) : 0n;
}

/** `YYYY-MM-DD` from a day count since the epoch. */
export function dateFromDays(days: number): string {
  const { year, month, day } = civilFromDays(days);
  return `${yearText(year)}-${pad2(month)}-${pad2(day)}`;
}

/** `HH:MM:SS[.ffffff]` from microseconds since midnight. */
export function timeFromMicros(micros: bigint): string {
  const seconds = Number(micros / MICROS_PER_SECOND);
  const fraction = Number(micros % MICROS_PER_SECOND);
  return `${pad2(Math.floor(seconds / 3600))}:${pad2(Math.floor(seconds / 60) % 60)}:${pad2(seconds % 60)}${fractionText(fraction)}`;
}

/** `±HH:MM` from an offset in seconds east of UTC. */
export function offsetText(offsetSeconds: number): string {
  const sign = offsetSeconds < 0 ? '-' : '+';
  const abs = Math.abs(offsetSeconds);
  const seconds = abs % 60;
  return `${sign}${pad2(Math.floor(abs / 3600))}:${pad2(Math.floor(abs / 60) % 60)}${seconds ? `:${pad2(seconds)}` : ''}`;
}

/** `YYYY-MM-DDTHH:MM:SS[.ffffff]` from microseconds since the epoch (a zoneless wall clock). */
export function localFromMicros(micros: bigint): string {
  let days = micros / MICROS_PER_DAY;
  let rest = micros % MICROS_PER_DAY;
  if (rest < 0n) {
    rest += MICROS_PER_DAY;
    days -= 1n;
  }
  return `${dateFromDays(Number(days))}T${timeFromMicros(rest)}`;
}

const TIMESTAMP_TEXT =
  /^(-?\d{4,})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:(Z)|([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?)?( BC)?$/;

/** Year in astronomical numbering: `0044 BC` is -43. */
function astronomicalYear(year: string, bc: string | undefined): number {
  return bc ? 1 - Number(year) : Number(year);
}

/**
 * Microseconds since the epoch of a zoned timestamp written as text
 * (`2024-01-02 03:04:05.123456+00`, `...+05:30`, `...Z`, `... BC`). Null when
 * the text is not a finite timestamp (`infinity`).
 */
export function instantMicrosFromText(text: string): bigint | null {
  const m = TIMESTAMP_TEXT.exec(text);
  if (!m) return null;
  const days = daysFromCivil(astronomicalYear(m[1], m[13]), Number(m[2]), Number(m[3]));
  const seconds = Number(m[4]) * 3600 + Number(m[5]) * 60 + Number(m[6]);
  let offset = 0;
  if (m[9]) {
    offset = Number(m[10]) * 3600 + Number(m[11] ?? 0) * 60 + Number(m[12] ?? 0);
    if (m[9] === '-') offset = -offset;
  }
  return (BigInt(days) * 86_400n + BigInt(seconds - offset)) * MICROS_PER_SECOND + fractionMicros(m[7]);
}

/**
 * `YYYY-MM-DDTHH:MM:SS[.ffffff]` from a zoneless timestamp's text
 * (`2024-01-02 03:04:05.120000`). Null when the text is not a finite timestamp.
 */
export function localTimestampText(text: string): string | null {
  const m = TIMESTAMP_TEXT.exec(text);
  if (!m || m[8] || m[9]) return null;
  const year = astronomicalYear(m[1], m[13]);
  return `${yearText(year)}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${trimFraction(m[7])}`;
}

const TIME_TEXT = /^(-?\d{2,3}):(\d{2}):(\d{2})(\.\d+)?(?:([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?)?$/;

/**
 * `HH:MM:SS[.ffffff][±HH:MM]` from a time's text (`12:34:56.500`, `12:00:00+05`).
 * Text that is not a plain time of day (MySQL's `-838:59:59` durations) comes back as is.
 */
export function timeText(text: string): string {
  const m = TIME_TEXT.exec(text);
  if (!m) return text;
  let out = `${m[1]}:${m[2]}:${m[3]}${trimFraction(m[4])}`;
  if (m[5]) out += `${m[5]}${m[6]}:${m[7] ?? '00'}${m[8] && m[8] !== '00' ? `:${m[8]}` : ''}`;
  return out;
}

const DATE_TEXT = /^(-?\d{4,})-(\d{2})-(\d{2})( BC)?$/;

/** `YYYY-MM-DD` from a date's text (`2024-01-02`, `0044-03-15 BC`). Null when not a finite date. */
export function dateText(text: string): string | null {
  const m = DATE_TEXT.exec(text);
  if (!m) return null;
  return m[4] ? `${yearText(astronomicalYear(m[1], m[4]))}-${m[2]}-${m[3]}` : text;
}
