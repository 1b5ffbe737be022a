/**
 * Serialization pushed down into DuckDB: SQL that renders each row of a
 * statement as one finished line of csv, tsv or ndjson, byte for byte what
 * the JS serializers (formats/csv.ts, tsv.ts, ndjson.ts over the values
 * duckdb-types.ts makes) would write. Every supported type has an exact SQL
 * rendering of `valueText` and `jsonValue`; a statement with any other type
 * gets null, and the caller serializes in JS.
 *
 * Renderings (x non-null):
 * - integers, DECIMAL, UUID, ENUM: DuckDB's own text (plain digits; the
 *   decimal's scale kept); BOOLEAN `true`/`false`.
 * - DOUBLE, FLOAT (widened to double as JS sees it): JS `String(number)`.
 *   Both print the shortest round-trip digits; only the notation differs, so
 *   whole numbers below 2^53 go through BIGINT, larger ones below 1e21 become
 *   their digits padded with zeros, [1e-6, 1e-4) is re-spelled in decimal,
 *   and exponents lose their leading zeros. NaN/±Infinity as JS.
 * - DATE, TIMESTAMP(_S/_MS): ISO text with `T`, fraction trimmed, years
 *   before 1 spelled as temporal.ts does; non-finite values as DuckDB prints
 *   them (`infinity`), as the JS path does.
 * - TIMESTAMPTZ: the server zone's offset from zone-offsets.ts (the JS
 *   renderer's own offsets) looked up in a constant table of change points
 *   per period, then the local wall clock and `±HH:MM`, years as time.ts
 *   writes them.
 * - BLOB: base64. VARCHAR: as is; in JSON quoted with JSON.stringify's
 *   escapes (`\"`, `\\`, \b \f \n \r \t, other controls as lower-case
 *   `\u00xx`, nothing else), spelled out because DuckDB's `to_json` writes
 *   upper-case hex.
 * Not pushed down (JS path): TIME*, INTERVAL, TIMESTAMP_NS, JSON, nested
 * types, BIT, BIGNUM and anything else.
 */
import { DuckDBTypeId, type DuckDBType } from '@duckdb/node-api';
import type { LineFormat } from '../types.ts';
import { CYCLE_END_MS, CYCLE_MS, zoneOffsets } from '../zone-offsets.ts';

/** SQL over one column `v` (and its helper fields `v_<name>`), for a non-null value. */
interface Rendering {
  /**
   * Helper fields computed once per row before the text: name -> SQL over the
   * source column `v`; each level may use the fields of the levels before it
   * as `v_<name>`.
   */
  helpers?: (v: string) => Record<string, string>[];
  /** `valueText`. */
  text: (v: string) => string;
  /** `jsonValue`. */
  json: (v: string) => string;
  /** The text may be empty or hold `"`, `,`, CR or LF (csv must check), or `\`, TAB, CR, LF (tsv must escape). */
  freeText?: boolean;
}

export const sqlString = (text: string) => `'${text.replace(/'/g, "''")}'`;
const quoted = (sql: string) => `'"' || ${sql} || '"'`;

const SHORT_ESCAPES: Record<number, string> = { 8: '\\b', 9: '\\t', 10: '\\n', 12: '\\f', 13: '\\r' };

/** JSON.stringify of a string. The replacement chain only runs on text that needs it. */
function jsonString(v: string): string {
  let escaped = `replace(replace(${v}, '\\', '\\\\'), '"', '\\"')`;
  for (let code = 0; code < 32; code++) {
    escaped = `replace(${escaped}, chr(${code}), '${SHORT_ESCAPES[code] ?? `\\u${code.toString(16).padStart(4, '0')}`}')`;
  }
  return `'"' || CASE WHEN regexp_matches(${v}, '[\\x00-\\x1f"\\\\]') THEN ${escaped} ELSE ${v} END || '"'`;
}

const plain: Rendering = { text: (v) => `CAST(${v} AS VARCHAR)`, json: (v) => `CAST(${v} AS VARCHAR)` };

function jsNumber(v: string): string {
  const t = `CAST(${v} AS VARCHAR)`;
  const sign = `CASE WHEN ${v} < 0 THEN '-' ELSE '' END`;
  const digits = `replace(replace(split_part(${t}, 'e', 1), '-', ''), '.', '')`;
  const exponent = `CAST(split_part(${t}, 'e', 2) AS INTEGER)`;
  // JS writes whole numbers up to 1e21 as their shortest digits padded with zeros.
  const wholeDigits = `CASE WHEN contains(${t}, 'e') THEN ${sign} || rpad(${digits}, ${exponent} + 1, '0') ELSE regexp_replace(${t}, '\\.0$', '') END`;
  const smallDecimal = `${sign} || '0.' || repeat('0', -${exponent} - 1) || ${digits}`;
  return `CASE WHEN abs(${v}) >= 1e-4 AND abs(${v}) < 1e15 AND ${v} <> trunc(${v}) THEN ${t}
    WHEN ${v} = trunc(${v}) AND abs(${v}) < 9007199254740992 THEN CAST(CAST(${v} AS BIGINT) AS VARCHAR)
    WHEN ${v} = trunc(${v}) AND abs(${v}) < 1e21 THEN ${wholeDigits}
    WHEN isnan(${v}) THEN 'NaN'
    WHEN isinf(${v}) THEN CASE WHEN ${v} > 0 THEN 'Infinity' ELSE '-Infinity' END
    WHEN abs(${v}) >= 1e-4 AND abs(${v}) < 1e16 THEN ${t}
    WHEN abs(${v}) >= 1e-6 AND abs(${v}) < 1e-4 THEN ${smallDecimal}
    ELSE regexp_replace(${t}, 'e([+-])0+', 'e\\1') END`;
}

const double: Rendering = {
  helpers: (v) => [{ d: `CAST(${v} AS DOUBLE)` }],
  text: (v) => jsNumber(`${v}_d`),
  json: (v) => `CASE WHEN isnan(${v}_d) OR isinf(${v}_d) THEN 'null' ELSE ${jsNumber(`${v}_d`)} END`,
};

/** `.123` trimmed from a `%S.%f` rendering: trailing zeros, then a bare point. */
const trimmed = (sql: string) => `rtrim(rtrim(${sql}, '0'), '.')`;

/** temporal.ts `yearText`: astronomical years, `-0043`, `12000`. */
const yearText = (y: string) => `CASE WHEN ${y} < 0 THEN '-' || printf('%04d', -${y}) ELSE printf('%04d', ${y}) END`;

/**
 * A timestamp from year 1 on as ISO text: DuckDB's text of its date and of
 * its time of day, which is its timestamp text either side of the space,
 * joined by `T`. Half the cost of `replace`-ing the space in the whole text.
 */
const isoText = (t: string) => `concat(CAST(${t} AS DATE), 'T', CAST(${t} AS TIME))`;

// From year 1 on, DuckDB's own text is ours with a space for the `T` (fractions already trimmed,
// years past 9999 unpadded); before it, DuckDB writes `(BC)`, so those are spelled out.
const date: Rendering = {
  text: (v) => `CASE WHEN ${v} >= DATE '0001-01-01' OR NOT isfinite(${v}) THEN CAST(${v} AS VARCHAR)
    ELSE ${yearText(`year(${v})`)} || strftime(${v}, '-%m-%d') END`,
  json: (v) => quoted(date.text(v)),
};

const timestamp: Rendering = {
  helpers: (v) => [{ t: `CAST(${v} AS TIMESTAMP)` }],
  text: (v) => {
    const t = `${v}_t`;
    return `CASE WHEN NOT isfinite(${t}) THEN CAST(${t} AS VARCHAR)
      WHEN ${t} >= TIMESTAMP '0001-01-01' THEN ${isoText(t)}
      ELSE ${yearText(`year(${t})`)} || ${trimmed(`strftime(${t}, '-%m-%dT%H:%M:%S.%f')`)} END`;
  },
  json: (v) => quoted(timestamp.text(v)),
};

/** Fixed periods (365.2425 days) indexing the change points, so a row finds its offset in O(1). */
const PERIOD_MS = 31_556_952_000;

/**
 * A constant BIGINT list spelled as one string literal that DuckDB splits
 * and casts once: a list of literals costs an expression node each to bind,
 * and the zone's table as ~700 struct literals took ~5 MB more memory at
 * every prepare, kept by the allocator afterwards.
 */
const bigintList = (values: bigint[]) => `CAST(string_split('${values.join(',')}', ',') AS BIGINT[])`;

/**
 * The zone's offsets as constant lists with one entry per period from
 * START_MS: `o`, the offset in force at the period's start, then up to `k`
 * change instants `c<i>` (µs) with the offsets `o<i>` from then on, padded
 * with a change that never comes. A search tree of CASE expressions would
 * cost DuckDB memory per node; this costs a few list lookups per row.
 */
function offsetTable(): { lists: Record<string, string>; k: number; startUs: bigint; periodUs: bigint } {
  const { initial, changes, startMs } = zoneOffsets();
  const periods = Math.ceil((CYCLE_END_MS - startMs) / PERIOD_MS);
  const entries: { o: number; c: [number, number][] }[] = [];
  let at = 0;
  let current = initial;
  for (let p = 0; p < periods; p++) {
    const end = startMs + (p + 1) * PERIOD_MS;
    const entry = { o: current, c: [] as [number, number][] };
    for (; at < changes.length && changes[at].atMs < end; at++) {
      entry.c.push([changes[at].atMs, changes[at].minutes]);
      current = changes[at].minutes;
    }
    entries.push(entry);
  }
  const k = Math.max(1, ...entries.map((e) => e.c.length));
  const never = 9_223_372_036_854_775_807n;
  const columns: Record<string, bigint[]> = { o: entries.map((e) => BigInt(e.o)) };
  for (let i = 0; i < k; i++) {
    columns[`c${i}`] = entries.map((e) => (e.c[i] ? BigInt(e.c[i][0]) * 1000n : never));
    // The offset after the i-th change, or the last one in force when the period has fewer.
    columns[`o${i}`] = entries.map((e) => BigInt(e.c.slice(0, i + 1).at(-1)?.[1] ?? e.o));
  }
  const lists = Object.fromEntries(Object.entries(columns).map(([name, values]) => [name, bigintList(values)]));
  return { lists, k, startUs: BigInt(startMs) * 1000n, periodUs: BigInt(PERIOD_MS) * 1000n };
}

function offsetText(minutes: number): string {
  const abs = Math.abs(minutes);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${minutes < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

const instant: Rendering = {
  helpers: (v): Record<string, string>[] => {
    const { lists, k, startUs, periodUs } = offsetTable();
    const cycleUs = BigInt(CYCLE_MS) * 1000n;
    const endUs = BigInt(CYCLE_END_MS) * 1000n;
    // epoch_us of an infinite value is not an instant: keep it out (the text prints it as DuckDB does).
    const us = `CASE WHEN isfinite(${v}) THEN epoch_us(${v}) ELSE 0 END`;
    // Past the sampled window, the same moment 400·k years earlier (see zone-offsets.ts).
    const folded = `CASE WHEN ${v}_us < ${endUs} THEN ${v}_us ELSE ${v}_us - ((${v}_us - ${endUs}) // ${cycleUs} + 1) * ${cycleUs} END`;
    const period = `CASE WHEN ${v}_f < ${startUs} THEN NULL ELSE CAST((${v}_f - ${startUs}) // ${periodUs} AS BIGINT) + 1 END`;
    const at = (field: string) => `list_extract(${lists[field]}, ${v}_p)`;
    const steps = Array.from({ length: k }, (_, i) => `WHEN ${v}_f < ${at(`c${i}`)} THEN ${at(i === 0 ? 'o' : `o${i - 1}`)}`).join(' ');
    const offset = `CASE WHEN ${v}_p IS NULL THEN ${zoneOffsets().initial} ${steps} ELSE ${at(`o${k - 1}`)} END`;
    return [{ us }, { f: folded }, { p: period }, { off: `CAST(${offset} AS BIGINT)` }, { l: `make_timestamp(${v}_us + ${v}_off * 60000000)` }];
  },
  text: (v) => {
    const local = `${v}_l`;
    const offsets = [...new Set([zoneOffsets().initial, ...zoneOffsets().changes.map((c) => c.minutes)])];
    const offset = `CASE ${v}_off ${offsets.map((m) => `WHEN ${m} THEN '${offsetText(m)}'`).join(' ')} END`;
    // time.ts formatLocal: years 0-9999 as four digits, others signed six.
    const year = `year(${local})`;
    const yearSpelled = `CASE WHEN ${year} = 0 THEN '0000' WHEN ${year} < 0 THEN '-' || printf('%06d', -${year}) ELSE '+' || printf('%06d', ${year}) END`;
    return `CASE WHEN NOT isfinite(${v}) THEN CAST(${v} AS VARCHAR)
      WHEN ${local} BETWEEN TIMESTAMP '0001-01-01' AND TIMESTAMP '9999-12-31 23:59:59.999999' THEN ${isoText(local)} || ${offset}
      ELSE ${yearSpelled} || ${trimmed(`strftime(${local}, '-%m-%dT%H:%M:%S.%f')`)} || ${offset} END`;
  },
  json: (v) => quoted(instant.text(v)),
};

const RENDERINGS: Partial<Record<DuckDBTypeId, Rendering>> = {
  [DuckDBTypeId.BOOLEAN]: { text: (v) => `CASE WHEN ${v} THEN 'true' ELSE 'false' END`, json: (v) => `CASE WHEN ${v} THEN 'true' ELSE 'false' END` },
  [DuckDBTypeId.TINYINT]: plain,
  [DuckDBTypeId.SMALLINT]: plain,
  [DuckDBTypeId.INTEGER]: plain,
  [DuckDBTypeId.BIGINT]: plain,
  [DuckDBTypeId.UTINYINT]: plain,
  [DuckDBTypeId.USMALLINT]: plain,
  [DuckDBTypeId.UINTEGER]: plain,
  [DuckDBTypeId.UBIGINT]: plain,
  [DuckDBTypeId.HUGEINT]: plain,
  [DuckDBTypeId.UHUGEINT]: plain,
  [DuckDBTypeId.DECIMAL]: plain,
  [DuckDBTypeId.FLOAT]: double,
  [DuckDBTypeId.DOUBLE]: double,
  [DuckDBTypeId.UUID]: { text: plain.text, json: (v) => quoted(plain.text(v)) },
  [DuckDBTypeId.VARCHAR]: { text: (v) => v, json: jsonString, freeText: true },
  [DuckDBTypeId.ENUM]: { text: plain.text, json: (v) => jsonString(`CAST(${v} AS VARCHAR)`), freeText: true },
  [DuckDBTypeId.BLOB]: { text: (v) => `base64(${v})`, json: (v) => quoted(`base64(${v})`), freeText: true },
  [DuckDBTypeId.DATE]: date,
  [DuckDBTypeId.TIMESTAMP]: timestamp,
  [DuckDBTypeId.TIMESTAMP_S]: timestamp,
  [DuckDBTypeId.TIMESTAMP_MS]: timestamp,
  [DuckDBTypeId.TIMESTAMP_TZ]: instant,
};

function renderingOf(type: DuckDBType): Rendering | null {
  if (type.alias) return null; // JSON and other aliased types: the JS path
  return RENDERINGS[type.typeId] ?? null;
}

const csvField = (t: string) =>
  `CASE WHEN ${t} = '' THEN '""' WHEN contains(${t}, '"') OR contains(${t}, ',') OR contains(${t}, chr(10)) OR contains(${t}, chr(13))` +
  ` THEN '"' || replace(${t}, '"', '""') || '"' ELSE ${t} END`;

const tsvEscaped = (t: string) =>
  `replace(replace(replace(replace(${t}, '\\', '\\\\'), chr(9), '\\t'), chr(10), '\\n'), chr(13), '\\r')`;

function cell(format: LineFormat, r: Rendering, v: string): string {
  if (format === 'ndjson') return `CASE WHEN ${v} IS NULL THEN 'null' ELSE ${r.json(v)} END`;
  const text = r.text(v);
  const finished = !r.freeText ? text : format === 'csv' ? csvField(text) : tsvEscaped(text);
  return `CASE WHEN ${v} IS NULL THEN '' ELSE ${finished} END`;
}

/**
 * The statement that renders `source` (a single SELECT-like statement, any
 * placeholders kept) as one `line` per row, in the source's order; null
 * when a column's type has no exact rendering. `keys` are the JSON keys
 * (ndjson), already unique and JSON-quoted.
 */
export function renderLinesSql(source: string, types: DuckDBType[], format: LineFormat, keys: string[]): string | null {
  const renderings = types.map(renderingOf);
  if (renderings.length === 0 || renderings.some((r) => r === null)) return null;
  const names = types.map((_, i) => `c${i}`);
  // Stage k selects every field of stage k-1 plus level k of the helpers.
  const levels = renderings.map((r, i) => r!.helpers?.(names[i]) ?? []);
  const depth = Math.max(0, ...levels.map((l) => l.length));
  let from = `(${source.replace(/;\s*$/, '')}\n) AS sluice_source(${names.join(', ')})`;
  let fields = [...names];
  for (let level = 0; level < depth; level++) {
    const added = levels.flatMap((l, i) => Object.entries(l[level] ?? {}).map(([name, sql]) => [`${names[i]}_${name}`, sql] as const));
    from = `(SELECT ${[...fields, ...added.map(([name, sql]) => `${sql} AS ${name}`)].join(', ')} FROM ${from}) AS sluice_stage${level}`;
    fields = [...fields, ...added.map(([name]) => name)];
  }
  const cells = renderings.map((r, i) => cell(format, r!, names[i]));
  let line: string;
  if (format === 'ndjson') {
    line = `concat(${cells.map((c, i) => `${sqlString(`${i === 0 ? '{' : ','}${keys[i]}:`)}, ${c}`).join(', ')}, '}')`;
  } else {
    line = `concat(${cells.join(`, ${sqlString(format === 'csv' ? ',' : '\t')}, `)})`;
  }
  return `SELECT ${line} AS line FROM ${from}`;
}
