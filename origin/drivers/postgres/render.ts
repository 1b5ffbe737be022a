/**
 * Serialization pushed down into PostgreSQL: SQL that renders each row of a
 * statement as one finished line of csv, tsv or ndjson (line end included),
 * byte for byte what the JS serializers (formats/csv.ts, tsv.ts, ndjson.ts)
 * write from the values pg-types.ts makes of the server's text. A statement
 * with a column of any other type gets null, and the caller serializes in JS.
 *
 * The SQL relies on the settings pg-lines.ts makes local to its transaction
 * (DateStyle ISO, extra_float_digits 3); nothing depends on the session's
 * TimeZone, and literals with backslashes are E'' strings.
 *
 * Renderings (x non-null):
 * - int2/int4/int8, uuid: PostgreSQL's text (the JS path's digits); numeric
 *   its text, in JSON `null` for NaN/±Infinity (json-text.ts decimalLiteral);
 *   bool `true`/`false`.
 * - float4/float8: JS `String(Number(text))`. float4out/float8out print
 *   round-trip digits, JS the same digits but for float8's ends of the
 *   rounding interval (float8Digits); float4's digits survive widening to a
 *   double as they are. Then the notation differs: PostgreSQL switches to `1e+15` /
 *   `1e-05` outside [1e-4, 1e15) (float4: 1e6), JS outside [1e-6, 1e21) and
 *   without the exponent's leading zeros; `-0` is `0` in JS. NaN/±Infinity are
 *   spelled alike; JSON `null`.
 * - date, timestamp: ISO text with `T`, years before 1 in astronomical
 *   numbering as temporal.ts writes them; `infinity` as is.
 * - timestamptz: the instant's UTC microseconds, the server zone's offset at it
 *   from zone-offsets.ts (the JS renderer's own offsets, looked up by binary
 *   search with `width_bucket` in a constant array; past the sampled window the
 *   same moment 400·k years earlier), then the local wall clock with time.ts's
 *   years (0-9999 four digits, else signed six) and `±HH:MM`.
 * - bytea: base64 without line breaks. text/varchar: as is; in JSON `to_json`,
 *   whose escapes are JSON.stringify's (`\"`, `\\`, \b \f \n \r \t, other
 *   controls as lower-case `\u00xx`).
 * Declined (JS path): everything else (bpchar keeps padding the casts drop;
 * time, interval, json, arrays, enums...); a domain is described as its base type.
 */
import { formatOffset } from '../../time.ts';
import type { LineFormat } from '../types.ts';
import { CYCLE_END_MS, CYCLE_MS, zoneOffsets } from '../zone-offsets.ts';

/** SQL over one column `v` (and its helper fields `v_<name>`), for a non-null value. */
interface Rendering {
  /** Helper fields computed once per row, level by level; a level may use the fields of earlier ones as `v_<name>`. */
  helpers?: (v: string) => Record<string, string>[];
  /** `valueText`. */
  text: (v: string) => string;
  /** `jsonValue`. */
  json: (v: string) => string;
  /** The text may be empty or hold `"`, `,`, CR, LF (csv must check), `\`, TAB (tsv must escape). */
  freeText?: boolean;
}

/** A string literal that means the same whatever `standard_conforming_strings` says. */
export function sqlE(text: string): string {
  const body = text
    .replace(/\\/g, '\\\\')
    .replace(/'/g, "''")
    .replace(/\r/g, '\\r')
    .replace(/\n/g, '\\n')
    .replace(/\t/g, '\\t');
  return `E'${body}'`;
}

const quoted = (sql: string) => `'"' || ${sql} || '"'`;

const plain: Rendering = { text: (v) => `${v}::text`, json: (v) => `${v}::text` };

/** JS `String(n)` from PostgreSQL's shortest-digits text `t` of the same number. */
function jsNumber(t: string): string {
  const mantissa = `split_part(${t}, 'e', 1)`;
  const exponent = `split_part(${t}, 'e', 2)::int4`;
  const digits = `replace(replace(${mantissa}, '-', ''), '.', '')`;
  const sign = `CASE WHEN left(${t}, 1) = '-' THEN '-' ELSE '' END`;
  const scientific = `CASE WHEN ${exponent} >= 21 OR ${exponent} <= -7
      THEN ${mantissa} || CASE WHEN ${exponent} > 0 THEN 'e+' ELSE 'e-' END || abs(${exponent})::text
    WHEN ${exponent} >= 0 THEN CASE WHEN length(${digits}) <= ${exponent} + 1
      THEN ${sign} || rpad(${digits}, ${exponent} + 1, '0')
      ELSE ${sign} || left(${digits}, ${exponent} + 1) || '.' || substr(${digits}, ${exponent} + 2) END
    ELSE ${sign} || '0.' || repeat('0', -${exponent} - 1) || ${digits} END`;
  return `CASE WHEN strpos(${t}, 'e') = 0 THEN CASE WHEN ${t} = '-0' THEN '0' ELSE ${t} END ELSE ${scientific} END`;
}

/**
 * float8out's digits, made JS's where they differ. PostgreSQL's shortest
 * digits never take an end of the rounding interval, JS's do (such a decimal
 * still reads back as the number, ties going to even): 1.2345e21 prints as
 * `1.2344999999999999e+21`. Such an end is a short decimal only when it is a
 * whole number with few significant digits, which needs 2^54 <= |x| < 2^133;
 * there the shortest decimal that reads back as x is searched for: for each
 * length p the digits cut to p and one step up, the shortest match first.
 */
function float8Digits(v: string): string {
  const t = `${v}_t`;
  const m = `split_part(${t}, 'e', 1)::numeric`;
  const e = `split_part(${t}, 'e', 2)::int4`;
  const candidate = `trunc(${m}, p - 1) + k * sign(${m}) * ('1e' || (1 - p))::numeric`;
  const search = `(SELECT CASE WHEN abs(c) >= 10 THEN CASE WHEN c < 0 THEN '-1e' ELSE '1e' END || (${e} + 1)::text ELSE c::text || 'e' || ${e}::text END
      FROM (SELECT p, ${candidate} AS c FROM generate_series(1, 16) AS p, (VALUES (0), (1)) AS step(k)) AS candidates
      WHERE (c::text || 'e' || ${e}::text)::float8 = ${v} ORDER BY p, abs(c - ${m}) LIMIT 1)`;
  return `CASE WHEN abs(${v}) >= 18014398509481984 AND abs(${v}) < 1.1e40 AND strpos(${t}, 'e') > 0 THEN coalesce(${search}, ${t}) ELSE ${t} END`;
}

const float4: Rendering = {
  helpers: (v) => [{ t: `${v}::text` }],
  text: (v) => jsNumber(`${v}_t`),
  json: (v) => `CASE WHEN ${v}_t IN ('NaN', 'Infinity', '-Infinity') THEN 'null' ELSE ${jsNumber(`${v}_t`)} END`,
};

const float8: Rendering = {
  helpers: (v): Record<string, string>[] => [{ t: `${v}::text` }, { s: float8Digits(v) }],
  text: (v) => jsNumber(`${v}_s`),
  json: (v) => `CASE WHEN ${v}_t IN ('NaN', 'Infinity', '-Infinity') THEN 'null' ELSE ${jsNumber(`${v}_s`)} END`,
};

const numeric: Rendering = {
  helpers: (v) => [{ t: `${v}::text` }],
  text: (v) => `${v}_t`,
  json: (v) => `CASE WHEN ${v}_t IN ('NaN', 'Infinity', '-Infinity') THEN 'null' ELSE ${v}_t END`,
};

const bool = `CASE WHEN %v THEN 'true' ELSE 'false' END`;

/** temporal.ts `yearText` of an astronomical year between -9999 and 9999: `-0043`, `0000`. */
const yearText = (y: string) => `CASE WHEN ${y} < 0 THEN '-' || lpad((-(${y}))::text, 4, '0') ELSE lpad((${y})::text, 4, '0') END`;

/** The astronomical year of a date or timestamp before year 1 (`extract` says -1 for 1 BC). */
const bcYear = (v: string) => `(extract(year from ${v})::int4 + 1)`;

/** `.5` of a timestamp's text (PostgreSQL already drops trailing zeros), or nothing. */
const fraction = (v: string) => `coalesce(substring(${v}::text from '[.][0-9]+'), '')`;

const date: Rendering = {
  text: (v) => `CASE WHEN ${v} >= DATE '0001-01-01' OR NOT isfinite(${v}) THEN ${v}::text
    ELSE ${yearText(bcYear(v))} || to_char(${v}, '-MM-DD') END`,
  json: (v) => quoted(date.text(v)),
};

const timestamp: Rendering = {
  text: (v) => `CASE WHEN NOT isfinite(${v}) THEN ${v}::text
    WHEN ${v} >= TIMESTAMP '0001-01-01' THEN replace(${v}::text, ' ', 'T')
    ELSE ${yearText(bcYear(v))} || to_char(${v}, '-MM-DD"T"HH24:MI:SS') || ${fraction(v)} END`,
  json: (v) => quoted(timestamp.text(v)),
};

const MIN_INT8 = '-9223372036854775808';

/** The zone's change points (µs) after a sentinel, and the offset from each on, in minutes and as text. */
function offsetArrays(): { changes: string; minutes: string; texts: string } {
  const { initial, changes } = zoneOffsets();
  const at = [MIN_INT8, ...changes.map((c) => (BigInt(c.atMs) * 1000n).toString())];
  const minutes = [initial, ...changes.map((c) => c.minutes)];
  return {
    changes: `'{${at.join(',')}}'::int8[]`,
    minutes: `'{${minutes.join(',')}}'::int4[]`,
    texts: `'{${minutes.map(formatOffset).join(',')}}'::text[]`,
  };
}

const instant: Rendering = {
  helpers: (v): Record<string, string>[] => {
    const { changes, minutes } = offsetArrays();
    const cycleUs = BigInt(CYCLE_MS) * 1000n;
    const endUs = BigInt(CYCLE_END_MS) * 1000n;
    const us = `CASE WHEN isfinite(${v}) THEN (extract(epoch from ${v}) * 1000000)::int8 ELSE 0 END`;
    // Past the sampled window, the same moment 400·k years earlier (see zone-offsets.ts).
    const folded = `CASE WHEN ${v}_us < ${endUs} THEN ${v}_us ELSE ${v}_us - ((${v}_us - ${endUs}) / ${cycleUs} + 1) * ${cycleUs} END`;
    return [
      { us },
      { b: `width_bucket(${folded}, ${changes})` },
      { l: `CASE WHEN isfinite(${v}) THEN (${v} AT TIME ZONE 'UTC') + (${minutes})[${v}_b] * INTERVAL '1 minute' END` },
    ];
  },
  text: (v) => {
    const { texts } = offsetArrays();
    const local = `${v}_l`;
    const offset = `(${texts})[${v}_b]`;
    // time.ts formatLocal: years 0-9999 as four digits, others signed six.
    const y = `extract(year from ${local})::int4`;
    const year = `(CASE WHEN ${y} < 0 THEN ${y} + 1 ELSE ${y} END)`;
    const yearSpelled = `CASE WHEN ${year} = 0 THEN '0000' WHEN ${year} < 0 THEN '-' || lpad((-${year})::text, 6, '0') ELSE '+' || lpad(${year}::text, 6, '0') END`;
    return `CASE WHEN NOT isfinite(${v}) THEN ${v}::text
      WHEN ${local} BETWEEN TIMESTAMP '0001-01-01' AND TIMESTAMP '9999-12-31 23:59:59.999999' THEN replace(${local}::text, ' ', 'T') || ${offset}
      ELSE ${yearSpelled} || to_char(${local}, '-MM-DD"T"HH24:MI:SS') || ${fraction(local)} || ${offset} END`;
  },
  json: (v) => quoted(instant.text(v)),
};

const text: Rendering = { text: (v) => `${v}::text`, json: (v) => `to_json(${v}::text)::text`, freeText: true };

/** By type OID (pg_type), the built-in types rendered exactly. */
const RENDERINGS: Record<number, Rendering> = {
  16: { text: (v) => bool.replace('%v', v), json: (v) => bool.replace('%v', v) },
  17: {
    text: (v) => `replace(encode(${v}, 'base64'), chr(10), '')`,
    json: (v) => quoted(`replace(encode(${v}, 'base64'), chr(10), '')`),
    freeText: true,
  },
  20: plain,
  21: plain,
  23: plain,
  25: text,
  700: float4,
  701: float8,
  1043: text,
  1082: date,
  1114: timestamp,
  1184: instant,
  1700: numeric,
  2950: { text: plain.text, json: (v) => quoted(plain.text(v)) },
};

/** True when a column of this type OID can be rendered. */
export function rendersType(oid: number): boolean {
  return RENDERINGS[oid] !== undefined;
}

const csvField = (t: string) =>
  `CASE WHEN ${t} = '' THEN '""' WHEN ${t} ~ ${sqlE('[",\\r\\n]')} THEN '"' || replace(${t}, '"', '""') || '"' ELSE ${t} END`;

const tsvEscaped = (t: string) =>
  `replace(replace(replace(replace(${t}, ${sqlE('\\')}, ${sqlE('\\\\')}), ${sqlE('\t')}, ${sqlE('\\t')}), ${sqlE('\n')}, ${sqlE('\\n')}), ${sqlE('\r')}, ${sqlE('\\r')})`;

function cell(format: LineFormat, r: Rendering, v: string): string {
  if (format === 'ndjson') return `CASE WHEN ${v} IS NULL THEN 'null' ELSE ${r.json(v)} END`;
  const text = r.text(v);
  const finished = !r.freeText ? text : format === 'csv' ? csvField(text) : tsvEscaped(text);
  return `CASE WHEN ${v} IS NULL THEN '' ELSE ${finished} END`;
}

const LINE_END: Record<LineFormat, string> = { csv: '\r\n', tsv: '\n', ndjson: '\n' };

/**
 * The SELECT that renders `source` (one SELECT-like statement without
 * parameters) as one text column per row, each value the finished line with
 * its line end, in the source's order; null when a column's type has no exact
 * rendering. `keys` are the JSON keys (ndjson), already unique.
 *
 * Each level of helpers is its own subquery with `OFFSET 0`, so PostgreSQL
 * neither pulls it up nor evaluates a helper once per use.
 */
export function renderPgLinesSql(source: string, oids: number[], format: LineFormat, keys: string[]): string | null {
  const renderings = oids.map((oid) => RENDERINGS[oid] ?? null);
  if (renderings.length === 0 || renderings.some((r) => r === null)) return null;
  const names = oids.map((_, i) => `c${i}`);
  const levels = renderings.map((r, i) => r!.helpers?.(names[i]) ?? []);
  const depth = Math.max(0, ...levels.map((l) => l.length));
  const body = source.replace(/;\s*$/, '');
  let from = `(SELECT ${names.join(', ')} FROM (${body}\n) AS sluice_source(${names.join(', ')}) OFFSET 0) AS sluice_base`;
  let fields = [...names];
  for (let level = 0; level < depth; level++) {
    const added = levels.flatMap((l, i) => Object.entries(l[level] ?? {}).map(([name, sql]) => [`${names[i]}_${name}`, sql] as const));
    from = `(SELECT ${[...fields, ...added.map(([name, sql]) => `${sql} AS ${name}`)].join(', ')} FROM ${from} OFFSET 0) AS sluice_stage${level}`;
    fields = [...fields, ...added.map(([name]) => name)];
  }
  const cells = renderings.map((r, i) => cell(format, r!, names[i]));
  let line: string;
  if (format === 'ndjson') {
    line = `${cells.map((c, i) => `${sqlE(`${i === 0 ? '{' : ','}${JSON.stringify(keys[i])}:`)} || ${c}`).join(' || ')} || '}'`;
  } else {
    line = cells.join(` || ${sqlE(format === 'csv' ? ',' : '\t')} || `);
  }
  return `SELECT ${line} || ${sqlE(LINE_END[format])} AS line FROM ${from}`;
}
