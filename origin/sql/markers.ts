import type { Dialect } from '../drivers/types.ts';
import { badRequest } from '../errors.ts';
import type { Token } from './tokenizer.ts';

/** Distinct `:name` markers in order of first appearance. */
export const markerNames = (tokens: Token[]) => [
  ...new Set(tokens.filter((t) => t.kind === 'marker').map((t) => t.text.slice(1))),
];

const hasValue = (params: Record<string, unknown>, name: string) =>
  Object.hasOwn(params, name) && params[name] !== undefined;

/** Every marker needs a value; null is a value (SQL NULL), absent or undefined is not. */
export function requireValues(names: string[], params: Record<string, unknown>): void {
  const missing = names.filter((name) => !hasValue(params, name));
  if (missing.length === 0) return;
  const list = missing.map((name) => `:${name}`).join(', ');
  throw badRequest(`No value given for ${missing.length === 1 ? 'parameter' : 'parameters'} ${list}`, { missing });
}

/** A change to the original text: a marker to bind, or a span replaced by new SQL. */
export type Edit =
  | { start: number; end: number; marker: string }
  | { start: number; end: number; text: string };

export const markerEdits = (tokens: Token[]): Edit[] =>
  tokens.filter((t) => t.kind === 'marker').map((t) => ({ start: t.start, end: t.end, marker: t.text.slice(1) }));

/**
 * ClickHouse's query parameter type for a bound value. The server parses the
 * value's text as this type (never as SQL), so the type only needs to hold it:
 * integers as Int64 (Int128/UInt64 past it), numbers as Float64, NULL as a
 * nullable string, which compares and casts like any literal.
 */
export function clickhouseParamType(value: unknown): string {
  if (value === null || value === undefined) return 'Nullable(String)';
  if (typeof value === 'boolean') return 'Bool';
  if (typeof value === 'bigint') {
    if (value >= -(2n ** 63n) && value < 2n ** 63n) return 'Int64';
    return value >= 0n && value < 2n ** 64n ? 'UInt64' : 'Int256';
  }
  if (typeof value === 'number') return Number.isSafeInteger(value) ? 'Int64' : 'Float64';
  return 'String';
}

/**
 * A bound value written as a PostgreSQL literal, as postgres.js would send it
 * unprepared (its text, of unknown type): text and numbers quoted, null as
 * NULL. Quotes are doubled and nothing else is special: the driver sends such
 * text only on a session whose `standard_conforming_strings` is on. The spaces
 * keep a word before it from making it an escape (`E'`) or typed literal
 * prefix, and a NUL, which would end the query text, is never inlined. Null
 * for any other value (booleans, bigints, dates, arrays): those are bound.
 */
function pgLiteral(value: unknown): string | null {
  if (value === null) return ' NULL ';
  if (typeof value === 'number') return ` '${String(value)}' `;
  if (typeof value === 'string' && !value.includes('\0')) return ` '${value.replaceAll("'", "''")}' `;
  return null;
}

/**
 * Applies the edits left to right. Postgres and DuckDB number placeholders,
 * so a name used twice reuses its `$n` and its value is sent once; ClickHouse
 * names them `{p1:Type}` (values bound in order: `p1` is the first); MySQL and
 * SQLite take one `?` and one value per occurrence. With `inline`, for
 * PostgreSQL, also the text with every value written in as a literal
 * (`pgLiteral`), when each can be: the driver may send a read answered whole
 * as one simple query.
 */
export function render(
  sql: string,
  edits: Edit[],
  dialect: Dialect,
  params: Record<string, unknown>,
  inline = false,
): { text: string; values: unknown[]; inlined: string | null } {
  const numbered = dialect === 'postgres' || dialect === 'duckdb' || dialect === 'clickhouse';
  const values: unknown[] = [];
  const indexes = new Map<string, number>();
  let text = '';
  let inlined: string | null = inline && dialect === 'postgres' ? '' : null;
  let at = 0;
  for (const edit of [...edits].sort((a, b) => a.start - b.start)) {
    const between = sql.slice(at, edit.start);
    text += between;
    if (inlined !== null) inlined += between;
    if ('text' in edit) {
      text += edit.text;
      if (inlined !== null) inlined += edit.text;
    } else if (!numbered) {
      values.push(params[edit.marker]);
      text += '?';
    } else {
      let index = indexes.get(edit.marker);
      if (index === undefined) {
        index = values.push(params[edit.marker]);
        indexes.set(edit.marker, index);
      }
      text += dialect === 'clickhouse' ? `{p${index}:${clickhouseParamType(params[edit.marker])}}` : `$${index}`;
      if (inlined !== null) {
        const literal = pgLiteral(params[edit.marker]);
        inlined = literal === null ? null : inlined + literal;
      }
    }
    at = edit.end;
  }
  const rest = sql.slice(at);
  return { text: text + rest, values, inlined: inlined === null ? null : inlined + rest };
}
