import type { Dialect } from '../drivers/types.ts';
import { badRequest } from '../errors.ts';
import { type MysqlQuoting, type Token, tokenize } from './tokenizer.ts';

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
/** The spec's characters. ASCII only: look-alike letters and quotes from other scripts have no business in SQL text. */
const PLAIN_TEXT = /^[A-Za-z0-9\s.,:@%+/-]*$/;
const NUMBER_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;
const BOOLEAN_TEXT = /^(?:true|false)$/i;
/** A MySQL server may read quotes any of these ways (see tokenizer.ts): a placeholder must be inside a string in each. */
const MYSQL_QUOTINGS: readonly MysqlQuoting[] = ['default', 'ansi_quotes', 'no_backslash_escapes'];

const OUTSIDE_PROBLEM = 'is pasted into the SQL outside quotes: must be a number or a boolean';
const QUOTED_PROBLEM = 'is pasted inside a quoted string: must be a number, a boolean, or text of letters, digits, whitespace and . , : @ % + / -';

/**
 * Replaces legacy `{name}` placeholders with their values as raw text, before
 * any other analysis. A value is pasted only where it cannot leave its place:
 * outside a string literal (in code, a quoted identifier or a comment) only a
 * number or a boolean, or an item of the parameter's declared `enum` made of
 * the spec's characters (`enumNames`: the author chose those texts); inside a
 * string literal, text of the spec's characters, which hold no quote, no
 * backslash and no `$`, so the string still ends where it did. Names not in
 * `values` stay as written. Every refused value is listed, as parameter
 * errors (400 with `errors`).
 */
export function substituteLegacy(
  sql: string,
  dialect: Dialect,
  values: Record<string, unknown>,
  enumNames: ReadonlySet<string> = new Set(),
): string {
  const found = [...sql.matchAll(PLACEHOLDER)].filter((match) => Object.hasOwn(values, match[1]));
  if (found.length === 0) return sql;
  const readings = (dialect === 'mysql' ? MYSQL_QUOTINGS : ['default' as const]).map((quoting) => tokenize(sql, dialect, quoting));
  const errors: Record<string, string> = {};
  const pasted: Array<{ name: string; start: number; end: number }> = [];
  let out = '';
  let at = 0;
  for (const match of found) {
    const name = match[1];
    const start = match.index;
    const end = start + match[0].length;
    const quoted = readings.every((tokens) => insideString(tokens, start, end));
    const text = quoted ? quotedText(values[name]) : codeText(values[name], enumNames.has(name));
    out += sql.slice(at, start);
    at = end;
    if (text === undefined) {
      errors[name] ??= quoted ? QUOTED_PROBLEM : OUTSIDE_PROBLEM;
      continue;
    }
    if (!quoted) pasted.push({ name, start: out.length, end: out.length + text.length });
    out += text;
  }
  out += sql.slice(at);
  // Next to a '-', a '*' or another value, pasted text could open a comment (`--`, `/*`) hiding the rest.
  for (const { name, start, end } of pasted) {
    const around = out.slice(Math.max(0, start - 1), end + 1);
    if (around.includes('--') || around.includes('/*')) errors[name] ??= `${OUTSIDE_PROBLEM}, and must not open a comment (--, /*) with its neighbours`;
  }
  if (Object.keys(errors).length > 0) throw badRequest('Invalid parameters', { errors });
  return out;
}

/** Whether `start..end` lies within one string literal (its quotes excluded). */
function insideString(tokens: readonly Token[], start: number, end: number): boolean {
  const token = tokens.find((t) => t.end > start);
  return token !== undefined && token.kind === 'string' && token.start < start && end < token.end;
}

function codeText(value: unknown, fromEnum: boolean): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === 'boolean') return String(value);
  if (typeof value !== 'string') return undefined;
  if (NUMBER_TEXT.test(value)) return value;
  if (BOOLEAN_TEXT.test(value)) return value.toLowerCase();
  return fromEnum && PLAIN_TEXT.test(value) ? value : undefined;
}

function quotedText(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === 'boolean') return String(value);
  return typeof value === 'string' && PLAIN_TEXT.test(value) ? value : undefined;
}
