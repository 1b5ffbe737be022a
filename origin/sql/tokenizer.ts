import type { Dialect } from '../drivers/types.ts';

/**
 * `word`: keyword or bare identifier; `quoted`: quoted identifier; `string`:
 * any string literal (dollar quotes included); `marker`: a `:name` parameter.
 * Whitespace is dropped; comments are kept because MySQL runs `/*!` ones.
 * ClickHouse: backslash escapes in every quote style, `"..."` and backticks
 * are identifiers, `# ` and `#!` start a line comment. PostgreSQL, DuckDB and
 * H2 (the jdbc dialect): `U&"..."` is one quoted token and `U&'...'` one
 * string, each with a following `UESCAPE '<c>'` clause taken in
 * (identifiers.ts decodes it). H2 in MySQL mode reads backticks as names.
 */
export type TokenKind =
  | 'word'
  | 'quoted'
  | 'string'
  | 'number'
  | 'marker'
  | 'comment'
  | 'punct'
  | 'operator';

export interface Token {
  kind: TokenKind;
  /** The original text, `start` to `end` (offsets into the analysed SQL). */
  text: string;
  start: number;
  end: number;
  /** Upper-cased text for words, '' for every other kind, so keyword tests stay cheap. */
  word: string;
}

/**
 * How a MySQL server reads quotes. The default honours backslash escapes in
 * both quote styles; `ansi_quotes` makes "..." an identifier (no backslash
 * escapes); `no_backslash_escapes` drops them everywhere. The guard checks all
 * three because it cannot know the server's sql_mode.
 */
export type MysqlQuoting = 'default' | 'ansi_quotes' | 'no_backslash_escapes';

const PUNCT = new Set(['(', ')', ',', ';', '[', ']', '{', '}', '.']);
const isDigit = (c: string) => c >= '0' && c <= '9';
const isWordStart = (c: string) => /[A-Za-z_]/.test(c) || c > '\u007f';
const isWordChar = (c: string) => /[A-Za-z0-9_$]/.test(c) || (c > '\u007f' && !/\s/.test(c));
const DOLLAR_TAG = /\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/y;

export function tokenize(sql: string, dialect: Dialect, quoting: MysqlQuoting = 'default'): Token[] {
  const pgLike = dialect === 'postgres' || dialect === 'duckdb';
  const mysql = dialect === 'mysql';
  const clickhouse = dialect === 'clickhouse';
  const unicodeNames = pgLike || dialect === 'jdbc';
  const tokens: Token[] = [];
  const push = (kind: TokenKind, start: number, end: number) => {
    const text = sql.slice(start, end);
    tokens.push({ kind, text, start, end, word: kind === 'word' ? text.toUpperCase() : '' });
    return end;
  };

  let i = 0;
  let dollarEnd: number | null = null;
  while (i < sql.length) {
    const c = sql[i];
    const next = sql[i + 1] ?? '';
    if (/\s/.test(c)) {
      i++;
    } else if (c === '-' && next === '-' && (!mysql || startsMysqlDashComment(sql, i))) {
      i = push('comment', i, lineEnd(sql, i));
    } else if (c === '#' && (mysql || (clickhouse && (next === ' ' || next === '!')))) {
      i = push('comment', i, lineEnd(sql, i));
    } else if (c === '/' && next === '*') {
      i = push('comment', i, blockCommentEnd(sql, i, pgLike || clickhouse));
    } else if (c === "'") {
      i = push('string', i, quotedEnd(sql, i, "'", clickhouse || (mysql && quoting !== 'no_backslash_escapes')));
    } else if (c === '"') {
      const asString = mysql && quoting !== 'ansi_quotes';
      const end = quotedEnd(sql, i, '"', clickhouse || (asString && quoting === 'default'));
      i = push(asString ? 'string' : 'quoted', i, end);
    } else if ((c === 'u' || c === 'U') && next === '&' && unicodeNames && (sql[i + 2] === '"' || sql[i + 2] === "'")) {
      const quote = sql[i + 2];
      const end = uescapeEnd(sql, quotedEnd(sql, i + 2, quote, false), pgLike);
      i = push(quote === '"' ? 'quoted' : 'string', i, end);
    } else if (c === '`' && (mysql || clickhouse || dialect === 'sqlite' || dialect === 'jdbc')) {
      i = push('quoted', i, quotedEnd(sql, i, '`', clickhouse));
    } else if (c === '[' && dialect === 'sqlite') {
      const close = sql.indexOf(']', i + 1);
      i = push('quoted', i, close < 0 ? sql.length : close + 1);
    } else if (c === '$' && pgLike && (dollarEnd = dollarQuoteEnd(sql, i)) !== null) {
      i = push('string', i, dollarEnd);
    } else if ((c === 'e' || c === 'E') && next === "'" && pgLike) {
      // E'...' is the one postgres string form where backslash escapes apply.
      i = push('string', i, quotedEnd(sql, i + 1, "'", true));
    } else if (isDigit(c) || (c === '.' && isDigit(next))) {
      i = push('number', i, numberEnd(sql, i));
    } else if (isWordStart(c)) {
      let end = i + 1;
      while (end < sql.length && isWordChar(sql[end])) end++;
      i = push('word', i, end);
    } else if (c === ':' && next === ':') {
      i = push('operator', i, i + 2);
    } else if (c === ':' && isMarkerStart(sql, i)) {
      let end = i + 2;
      while (end < sql.length && /[A-Za-z0-9_]/.test(sql[end])) end++;
      i = push('marker', i, end);
    } else {
      i = push(PUNCT.has(c) ? 'punct' : 'operator', i, i + 1);
    }
  }
  return tokens;
}

/**
 * `:name` right after an identifier or number character is not a marker: it
 * is an array slice bound (`a[1:n]`) or some other operator use of the colon.
 */
function isMarkerStart(sql: string, i: number): boolean {
  const name = sql[i + 1] ?? '';
  const before = sql[i - 1] ?? '';
  return /[A-Za-z_]/.test(name) && !/[A-Za-z0-9_$]/.test(before);
}

/** MySQL reads `--` as a comment only when a space or control character follows (`1--1` is arithmetic). */
function startsMysqlDashComment(sql: string, i: number): boolean {
  const after = sql[i + 2];
  return after === undefined || after <= ' ' || after === '\u007f';
}

function lineEnd(sql: string, i: number): number {
  const newline = /[\r\n]/g;
  newline.lastIndex = i;
  return newline.exec(sql)?.index ?? sql.length;
}

/** Postgres, DuckDB and ClickHouse nest block comments; MySQL and SQLite end at the first `*\/`. Unterminated runs to the end. */
function blockCommentEnd(sql: string, i: number, nested: boolean): number {
  let depth = 0;
  let j = i;
  while (j < sql.length) {
    if (sql.startsWith('/*', j) && (nested || depth === 0)) {
      depth++;
      j += 2;
    } else if (sql.startsWith('*/', j)) {
      depth--;
      j += 2;
      if (depth === 0) return j;
    } else {
      j++;
    }
  }
  return sql.length;
}

/**
 * After a `U&` quoted run ending at `end`: the end of a `UESCAPE '<c>'` clause
 * that follows (past whitespace and comments, as PostgreSQL's lexer looks
 * ahead), or `end` when none does. A UESCAPE with no string after it is
 * taken in too, so the name cannot be read and the statement is refused.
 */
function uescapeEnd(sql: string, end: number, nested: boolean): number {
  const skip = (from: number) => {
    let j = from;
    for (;;) {
      while (j < sql.length && /\s/.test(sql[j])) j++;
      if (sql.startsWith('--', j)) j = lineEnd(sql, j);
      else if (sql.startsWith('/*', j)) j = blockCommentEnd(sql, j, nested);
      else return j;
    }
  };
  const word = skip(end);
  if (sql.slice(word, word + 7).toUpperCase() !== 'UESCAPE' || isWordChar(sql[word + 7] ?? ' ')) return end;
  const string = skip(word + 7);
  return sql[string] === "'" ? quotedEnd(sql, string, "'", false) : word + 7;
}

/** End of a quoted run opened at `i`: the quote doubled is an escape, and so is a backslash when asked. */
function quotedEnd(sql: string, i: number, quote: string, backslash: boolean): number {
  let j = i + 1;
  while (j < sql.length) {
    const c = sql[j];
    if (backslash && c === '\\') {
      j += 2;
    } else if (c === quote) {
      if (sql[j + 1] !== quote) return j + 1;
      j += 2;
    } else {
      j++;
    }
  }
  return sql.length;
}

/** `$$...$$` or `$tag$...$tag$`; null when `$` does not open one (`$1` is a positional parameter). */
function dollarQuoteEnd(sql: string, i: number): number | null {
  DOLLAR_TAG.lastIndex = i;
  const open = DOLLAR_TAG.exec(sql);
  if (!open) return null;
  const close = sql.indexOf(open[0], i + open[0].length);
  return close < 0 ? sql.length : close + open[0].length;
}

function numberEnd(sql: string, i: number): number {
  const match = /0[xX][0-9A-Fa-f_]+|(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?(?:[eE][+-]?[0-9]+)?/y;
  match.lastIndex = i;
  const found = match.exec(sql);
  return found && found[0].length > 0 ? i + found[0].length : i + 1;
}

/** Tokens that are code: comments removed. */
export const codeTokens = (tokens: Token[]) => tokens.filter((t) => t.kind !== 'comment');
