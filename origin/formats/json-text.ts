/**
 * JSON text of values. bigint and Decimal are written as exact number literals
 * (never through a JS number); numbers that are not finite become `null`.
 */
import { Decimal, Instant, JsonValue, LocalTimestamp, SqlDate, SqlTime, type Value } from '../values.ts';
import { formatInstantMicros } from '../time.ts';

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const LOOSE_NUMBER = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * A decimal's text as a JSON (and YAML) number literal, digits untouched:
 * `+007.50` -> `7.50`, `.5` -> `0.5`. `NaN` and infinities -> `null`, like
 * non-finite floats. Text that is no number at all is kept as a JSON string.
 */
export function decimalLiteral(text: string): string {
  if (JSON_NUMBER.test(text)) return text;
  const m = LOOSE_NUMBER.exec(text);
  if (m && (m[2] || m[3])) {
    const int = m[2].replace(/^0+(?=\d)/, '') || '0';
    const frac = m[3] ? `.${m[3]}` : '';
    const exp = m[4] !== undefined ? `e${m[4]}` : '';
    const literal = `${m[1] === '-' ? '-' : ''}${int}${frac}${exp}`;
    if (JSON_NUMBER.test(literal)) return literal;
  }
  if (/^[+-]?(nan|inf(inity)?)$/i.test(text)) return 'null';
  return JSON.stringify(text);
}

export function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** One cell as JSON text. */
export function jsonValue(v: Value): string {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'bigint':
      return v.toString();
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (v === null) return 'null';
  if (v instanceof Instant) return `"${formatInstantMicros(v.epochMicros)}"`;
  if (v instanceof Decimal) return decimalLiteral(v.text);
  if (v instanceof SqlDate || v instanceof SqlTime || v instanceof LocalTimestamp) return JSON.stringify(v.text);
  if (v instanceof Uint8Array) return `"${base64(v)}"`;
  if (v instanceof JsonValue) return jsonNested(v.value);
  return jsonNested(v);
}

/**
 * Nested structures (JsonValue contents) as JSON, like JSON.stringify but with
 * bigint as exact literals, binary as base64 and value-model objects as their
 * JSON form. Undefined, functions and symbols: `null` in arrays, dropped in objects.
 */
export function jsonNested(u: unknown): string {
  switch (typeof u) {
    case 'string':
      return JSON.stringify(u);
    case 'number':
      return Number.isFinite(u) ? String(u) : 'null';
    case 'bigint':
      return u.toString();
    case 'boolean':
      return u ? 'true' : 'false';
    case 'undefined':
    case 'function':
    case 'symbol':
      return 'null';
  }
  if (u === null) return 'null';
  if (Array.isArray(u)) return `[${u.map(jsonNested).join(',')}]`;
  if (
    u instanceof Decimal || u instanceof Instant || u instanceof SqlDate || u instanceof SqlTime ||
    u instanceof LocalTimestamp || u instanceof Uint8Array || u instanceof JsonValue
  ) {
    return jsonValue(u);
  }
  if (u instanceof Date) return Number.isNaN(u.getTime()) ? 'null' : JSON.stringify(u.toISOString());
  if (u instanceof Map) return jsonObject([...u].map(([k, v]) => [String(k), v]));
  const withToJson = u as { toJSON?: () => unknown };
  if (typeof withToJson.toJSON === 'function') return jsonNested(withToJson.toJSON());
  return jsonObject(Object.entries(u as object));
}

function jsonObject(entries: [string, unknown][]): string {
  const parts: string[] = [];
  for (const [key, value] of entries) {
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    parts.push(`${JSON.stringify(key)}:${jsonNested(value)}`);
  }
  return `{${parts.join(',')}}`;
}
