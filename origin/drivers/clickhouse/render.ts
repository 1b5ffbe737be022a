/**
 * Serialization pushed down into ClickHouse: SQL that renders each row of a
 * statement as one finished line of csv, tsv or ndjson (line end included),
 * byte for byte what the JS serializers (formats/csv.ts, tsv.ts, ndjson.ts)
 * write from the values types.ts makes of `JSONCompactEachRowWithNamesAndTypes`.
 * A statement with a column of any other type gets null, and the caller
 * serializes in JS.
 *
 * Renderings (x non-null, wrappers Nullable/LowCardinality looked through):
 * - (U)Int8…(U)Int256: `toString`, the exact digits the JS path reads from
 *   quoted JSON. Bool `true`/`false`.
 * - Decimal(P, S): `toDecimalString(x, S)`, the digits with all S fraction
 *   digits (output_format_decimal_trailing_zeros=1 on the JS path); in JSON
 *   as a number literal, as decimalLiteral leaves such text.
 * - Date, Date32: `YYYY-MM-DD` (their range is years 1900-2299).
 * - DateTime, DateTime64(≤6): the instant's UTC microseconds, the server
 *   zone's offset at it from zone-offsets.ts (the JS renderer's own offsets,
 *   never ClickHouse's tzdata), found by an unrolled binary search over a
 *   constant array, then the local wall clock formatted in UTC with trailing
 *   fraction zeros dropped and `±HH:MM`. DateTime64 finer than µs is declined
 *   (the JS path cuts it to µs while parsing its text).
 * - String, Enum: the bytes made valid UTF-8 (`toValidUTF8`, as
 *   output_format_json_validate_utf8 does on the JS path); csv quoting, tsv
 *   escapes and JSON.stringify's escapes spelled out with `replaceAll`.
 *   UUID: its text.
 * Declined (JS path): floats (ClickHouse's shortest digits are not JS
 * notation), FixedString (`toString` drops its trailing zero bytes, the JS
 * path keeps them), Time, IPs, Array/Map/Tuple/JSON and everything else.
 */
import { formatOffset } from '../../time.ts';
import type { LineFormat } from '../types.ts';
import { zoneOffsets } from '../zone-offsets.ts';
import { parseType, unwrap } from './types.ts';

/** A ClickHouse string literal of any text: backslash, quote and every control character escaped. */
export function chString(text: string): string {
  let out = "'";
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === "'") out += "\\'";
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}'`;
}

/** A backquoted identifier. */
export function chIdentifier(name: string): string {
  return `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``;
}

/**
 * How one column's non-null value `v` (already through `assumeNotNull`) becomes text.
 * `helpers` are computed once per row in the inner SELECT, in order, each
 * seeing the earlier ones; `<column>_<name>` names them there and after.
 */
interface Rendering {
  helpers?: (v: string, column: string) => [string, string][];
  text: (v: string, column: string) => string;
  json: (v: string, column: string) => string;
  /** Text that may be empty or hold `"`, `,`, CR, LF, `\`, TAB: csv must quote, tsv escape, JSON escape. */
  freeText?: boolean;
}

const quoted = (sql: string) => `concat('"', ${sql}, '"')`;

const plain: Rendering = { text: (v) => `toString(${v})`, json: (v) => `toString(${v})` };
const plainQuoted: Rendering = { text: plain.text, json: (v) => quoted(`toString(${v})`) };

/** JSON.stringify's escapes of a string's body: `\\`, `\"`, \b \f \n \r \t, other C0 controls as `\u00xx`. */
function jsonEscaped(s: string): string {
  const named: Record<number, string> = { 8: '\\b', 9: '\\t', 10: '\\n', 12: '\\f', 13: '\\r' };
  let sql = `replaceAll(replaceAll(${s}, '\\\\', '\\\\\\\\'), '"', '\\\\"')`;
  for (let code = 0; code < 0x20; code++) {
    const escape = named[code] ?? `\\u${code.toString(16).padStart(4, '0')}`;
    sql = `replaceAll(${sql}, ${chString(String.fromCharCode(code))}, ${chString(escape)})`;
  }
  // Most strings need none of it: the chain runs only where a special byte is.
  return `if(match(${s}, '[\\\\x00-\\\\x1f"\\\\\\\\]'), ${sql}, ${s})`;
}

const text: Rendering = { text: (v) => `toValidUTF8(toString(${v}))`, json: (v) => quoted(jsonEscaped(`toValidUTF8(toString(${v}))`)), freeText: true };

const date: Rendering = { text: (v) => `toString(${v})`, json: (v) => quoted(`toString(${v})`) };

/** The zone's change points (µs since the epoch) after a sentinel, padded to a power of two, and each one's offset, as WITH constants. */
export function offsetConstants(): { sql: string; levels: number } {
  const { initial, changes } = zoneOffsets();
  const at = ['-9223372036854775808', ...changes.map((c) => (BigInt(c.atMs) * 1000n).toString())];
  const minutes = [initial, ...changes.map((c) => c.minutes)];
  let size = 1;
  let levels = 0;
  while (size < at.length) {
    size *= 2;
    levels++;
  }
  while (at.length < size) at.push('9223372036854775807');
  while (minutes.length < size) minutes.push(minutes[minutes.length - 1]);
  const sql = [
    `CAST([${at.join(',')}] AS Array(Int64)) AS sluice_at`,
    `CAST([${minutes.join(',')}] AS Array(Int64)) AS sluice_minutes`,
    `[${minutes.map((m) => `'${formatOffset(m)}'`).join(',')}] AS sluice_offsets`,
  ].join(', ');
  return { sql, levels };
}

/**
 * An instant from its epoch microseconds: `b`, the 1-based index of the
 * last change at or before it, by a binary search unrolled into one helper
 * per level over the constant `sluice_at`, then the local clock as UTC text.
 */
function instant(micros: (v: string) => string): Rendering {
  const render = (_v: string, c: string) => {
    const local = `(${c}_us + arrayElement(sluice_minutes, ${c}_b) * 60000000)`;
    const fractionUs = `((${local} % 1000000 + 1000000) % 1000000)`;
    const seconds = `intDiv(${local} - ${fractionUs}, 1000000)`;
    const fraction = `if(${fractionUs} = 0, '', concat('.', replaceRegexpOne(leftPad(toString(${fractionUs}), 6, '0'), '0+$', '')))`;
    const clock = `formatDateTime(toDateTime64(${seconds}, 0, 'UTC'), '%Y-%m-%dT%H:%i:%S', 'UTC')`;
    return `concat(${clock}, ${fraction}, arrayElement(sluice_offsets, ${c}_b))`;
  };
  return {
    helpers: (v, c) => {
      const { levels } = offsetConstants();
      const steps: [string, string][] = [['us', `toInt64(${micros(v)})`]];
      let b = '1';
      for (let level = levels - 1; level >= 0; level--) {
        const step = 2 ** level;
        steps.push([`b${level}`, `${b} + if(arrayElement(sluice_at, ${b} + ${step}) <= ${c}_us, ${step}, 0)`]);
        b = `${c}_b${level}`;
      }
      steps.push(['b', b]);
      return steps;
    },
    text: render,
    json: (v, c) => quoted(render(v, c)),
  };
}

const INTEGERS = new Set(['Int8', 'Int16', 'Int32', 'Int64', 'Int128', 'Int256', 'UInt8', 'UInt16', 'UInt32', 'UInt64', 'UInt128', 'UInt256']);

/** The rendering of a column of this ClickHouse type, or null when it has no exact one. */
export function renderingFor(typeName: string): Rendering | null {
  const node = unwrap(parseType(typeName));
  const name = node.name;
  if (INTEGERS.has(name)) return plain;
  if (name === 'Bool') return { text: (v) => `if(${v}, 'true', 'false')`, json: (v) => `if(${v}, 'true', 'false')` };
  if (/^Decimal(32|64|128|256)?$/.test(name)) {
    // Decimal(P, S) or DecimalN(S): the scale is the last argument.
    const scale = Number(node.args[node.args.length - 1]?.name);
    if (!Number.isInteger(scale)) return null;
    return { text: (v) => `toDecimalString(${v}, ${scale})`, json: (v) => `toDecimalString(${v}, ${scale})` };
  }
  if (name === 'Date' || name === 'Date32') return date;
  if (name === 'UUID') return plainQuoted;
  // Not FixedString: toString drops its trailing zero bytes, which the JS path keeps.
  if (name === 'String' || name === 'Enum8' || name === 'Enum16') return text;
  if (name === 'DateTime') return instant((v) => `toUnixTimestamp(${v}) * 1000000`);
  if (name === 'DateTime64') {
    const precision = Number(node.args[0]?.name ?? 3);
    if (!Number.isInteger(precision) || precision > 6) return null;
    return instant((v) => `toUnixTimestamp64Micro(${v})`);
  }
  return null;
}

const csvField = (t: string) =>
  `multiIf(${t} = '', '""', multiSearchAny(${t}, ['"', ',', '\\r', '\\n']), concat('"', replaceAll(${t}, '"', '""'), '"'), ${t})`;

const tsvEscaped = (t: string) =>
  `replaceAll(replaceAll(replaceAll(replaceAll(${t}, '\\\\', '\\\\\\\\'), '\\t', '\\\\t'), '\\n', '\\\\n'), '\\r', '\\\\r')`;

function cell(format: LineFormat, r: Rendering, column: string): string {
  const v = `assumeNotNull(${column})`;
  if (format === 'ndjson') return `if(isNull(${column}), 'null', ${r.json(v, column)})`;
  const text = r.text(v, column);
  const finished = !r.freeText ? text : format === 'csv' ? csvField(text) : tsvEscaped(text);
  return `if(isNull(${column}), '', ${finished})`;
}

const LINE_END: Record<LineFormat, string> = { csv: '\r\n', tsv: '\n', ndjson: '\n' };

/**
 * The SELECT that renders `source` (a SELECT-like statement, its `{name:Type}`
 * parameters left for the server to bind) as one String column, each value a
 * finished line with its line end; null when a column's type has no exact
 * rendering or two columns share a name (the outer SELECT names them).
 * `keys` are the JSON keys (ndjson), already unique.
 */
export function renderChLinesSql(source: string, columns: { name: string; type: string }[], format: LineFormat, keys: string[]): string | null {
  if (columns.length === 0 || new Set(columns.map((c) => c.name)).size !== columns.length) return null;
  const renderings = columns.map((c) => renderingFor(c.type));
  if (renderings.some((r) => r === null)) return null;
  const names = columns.map((_, i) => `c${i}`);
  const fields = columns.map((c, i) => `sluice_source.${chIdentifier(c.name)} AS ${names[i]}`);
  renderings.forEach((r, i) => {
    for (const [name, sql] of r!.helpers?.(`assumeNotNull(${names[i]})`, names[i]) ?? []) fields.push(`${sql} AS ${names[i]}_${name}`);
  });
  const constants = renderings.some((r) => r!.helpers) ? `WITH ${offsetConstants().sql} ` : '';
  const cells = renderings.map((r, i) => cell(format, r!, names[i]));
  const parts: string[] = [];
  if (format === 'ndjson') {
    cells.forEach((c, i) => parts.push(chString(`${i === 0 ? '{' : ','}${JSON.stringify(keys[i])}:`), c));
    parts.push(chString('}'));
  } else {
    cells.forEach((c, i) => {
      if (i > 0) parts.push(chString(format === 'csv' ? ',' : '\t'));
      parts.push(c);
    });
  }
  parts.push(chString(LINE_END[format]));
  const stage = `${constants}SELECT ${fields.join(', ')} FROM (${source}\n) AS sluice_source`;
  return `${constants}SELECT concat(${parts.join(', ')}) AS line FROM (${stage}) AS sluice_stage`;
}
