import { parseWith } from './cte.ts';
import { lexDialect, type Engine } from './engine.ts';
import { h2Unreadable } from './h2.ts';
import { isUnicodeString, readName } from './identifiers.ts';
import { sideEffectCalls } from './side-effects.ts';
import { closingParen, depths, isPunct, leadingIndex } from './statements.ts';
import type { Token } from './tokenizer.ts';

/** What the guard concluded about one statement. */
export interface Verdict {
  keyword: string;
  isRead: boolean;
  refusal: string | null;
  writeOps: string[];
}

const READS = new Set(['SELECT', 'WITH', 'SHOW', 'DESCRIBE', 'EXPLAIN', 'VALUES']);
const DML = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE', 'REPLACE']);

/**
 * Statements that change data, schema, session or server state. Only the
 * wording of a refusal depends on this list (every keyword outside READS is
 * refused), and EXPLAIN/DESCRIBE use it to tell a statement from a table name.
 */
const WRITES = new Set([
  ...DML,
  ...['UPSERT', 'CREATE', 'DROP', 'ALTER', 'TRUNCATE', 'RENAME', 'COMMENT', 'GRANT', 'REVOKE'],
  ...['COPY', 'ATTACH', 'DETACH', 'PRAGMA', 'SET', 'RESET', 'CALL', 'DO', 'LOAD', 'INSTALL'],
  ...['LOCK', 'UNLOCK', 'VACUUM', 'ANALYZE', 'ANALYSE', 'REINDEX', 'CLUSTER', 'REFRESH'],
  ...['EXPORT', 'IMPORT', 'CHECKPOINT', 'EXECUTE', 'EXEC', 'PREPARE', 'DEALLOCATE', 'DECLARE'],
  ...['HANDLER', 'LISTEN', 'NOTIFY', 'UNLISTEN', 'DISCARD', 'REASSIGN', 'SECURITY', 'USE'],
  ...['BEGIN', 'START', 'COMMIT', 'ROLLBACK', 'SAVEPOINT', 'RELEASE', 'END', 'ABORT'],
  ...['FLUSH', 'KILL', 'OPTIMIZE', 'REPAIR', 'PURGE', 'UNINSTALL', 'SHUTDOWN', 'TABLE'],
]);

/** `TABLE t` is `SELECT * FROM t` in PostgreSQL, DuckDB and H2; elsewhere (MariaDB, SQLite, ClickHouse) it is no statement. */
const TABLE_READS: ReadonlySet<Engine> = new Set(['postgres', 'duckdb', 'h2']);

/** Statements of the four dialects that are neither reads nor in WRITES: refused as not reads, yet no typo. */
const OTHER_STATEMENTS = new Set([
  ...['FROM', 'PIVOT', 'UNPIVOT', 'SUMMARIZE', 'DESC', 'FETCH', 'MOVE', 'CLOSE', 'HELP', 'CHECK', 'CHECKSUM'],
  ...['BACKUP', 'RESTORE', 'GET', 'SIGNAL', 'RESIGNAL', 'XA', 'CACHE', 'BINLOG', 'CHANGE', 'STOP', 'CLONE'],
  ...['RESTART', 'FORCE', 'RETURN'],
]);

/**
 * Whether a statement may begin with `keyword` in one of the dialects: a
 * word that cannot (`SELEC`) is a typo to report, not a write to refuse.
 */
export const isStatementKeyword = (keyword: string): boolean => READS.has(keyword) || WRITES.has(keyword) || OTHER_STATEMENTS.has(keyword);

/** EXPLAIN modifiers that come before the explained statement, across the four dialects. */
const EXPLAIN_OPTIONS = new Set([
  'ANALYZE', 'ANALYSE', 'VERBOSE', 'QUERY', 'PLAN', 'EXTENDED', 'PARTITIONS', 'FORMAT',
]);

const read = (keyword: string): Verdict => ({ keyword, isRead: true, refusal: null, writeOps: [] });
const refuse = (keyword: string, refusal: string, writeOps: string[]): Verdict => ({
  keyword,
  isRead: false,
  refusal,
  writeOps: [...new Set(writeOps)],
});

/** Deeper nesting is refused: no database needs it, and it keeps the analysis linear in practice. */
const MAX_DEPTH = 256;

/**
 * Classifies one statement's code tokens (no comments, no `;`). A read must
 * lead with a read keyword, hide no data-modifying statement in a CTE or
 * subquery, and never say INTO (SELECT INTO creates a table in postgres and
 * writes a file or variable in MySQL), nor call a function with side effects
 * (side-effects.ts). The last three are checked once over the whole
 * statement, whatever the depth.
 */
export function classify(tokens: Token[], engine: Engine): Verdict {
  const keyword = tokens[leadingIndex(tokens)]?.word ?? '';
  if (depths(tokens).some((depth) => depth > MAX_DEPTH)) {
    return refuse(keyword, `parentheses nest more than ${MAX_DEPTH} deep`, []);
  }
  const unreadable = unreadableName(tokens, engine);
  if (unreadable) return refuse(keyword, `the statement cannot be read: ${unreadable}`, []);
  const dialect = lexDialect(engine);
  const own = verdictAt(tokens, 0, tokens.length, engine);
  const nested = nestedWrites(tokens);
  const calls = sideEffectCalls(tokens, engine);
  // A write that also calls one is allowed only where the call is too.
  const callOps = calls.map((call) => call.op);
  if (!own.isRead) return refuse(own.keyword, own.refusal ?? '', [...own.writeOps, ...nested, ...callOps]);
  if (nested.length > 0) {
    const inWith = tokens.some((t) => t.word === 'WITH');
    const where = inWith ? `writable CTE (${nested[0]} inside WITH)` : `${nested[0]} inside a subquery is a write`;
    return refuse(keyword, where, [...nested, ...callOps]);
  }
  if (tokens.some((t) => t.word === 'INTO')) {
    // Postgres SELECT INTO is CREATE TABLE AS; elsewhere it writes a file or a variable.
    const op = dialect === 'postgres' || dialect === 'duckdb' ? 'CREATE' : 'SELECT INTO';
    return refuse(keyword, 'SELECT ... INTO writes', [op, ...callOps]);
  }
  if (calls.length > 0) return refuse(keyword, calls[0].why, callOps);
  return read(keyword);
}

/**
 * Why a name in the statement cannot be read as the engine reads it
 * (identifiers.ts), or null: a bad escape, an unknown UESCAPE, a `U&'...'`
 * string where a name goes, a name in brackets before `(` on H2.
 */
function unreadableName(tokens: Token[], engine: Engine): string | null {
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.kind === 'quoted') {
      const name = readName(token, engine);
      if (name && 'unreadable' in name) return name.unreadable;
    } else if (isUnicodeString(token) && (isPunct(tokens[i + 1], '(') || isPunct(tokens[i + 1], '.') || isPunct(tokens[i - 1], '.'))) {
      return `${token.text.slice(0, 40)} is a string where a name is expected`;
    }
  }
  return engine === 'h2' ? h2Unreadable(tokens) : null;
}

/** The verdict from the leading keyword of the statement in `[from, end)`. */
function verdictAt(tokens: Token[], from: number, end: number, engine: Engine): Verdict {
  const dialect = lexDialect(engine);
  const lead = leadingIndex(tokens, from);
  const keyword = lead < end ? tokens[lead].word : '';
  if (!keyword) return refuse('', 'the statement does not start with a keyword', []);
  if (keyword === 'WITH') return withStatement(tokens, lead, end, engine);
  if (keyword === 'EXPLAIN' || keyword === 'DESCRIBE' || (keyword === 'DESC' && dialect === 'mysql')) {
    return explain(tokens, lead, end, engine);
  }
  if (READS.has(keyword) || (keyword === 'TABLE' && TABLE_READS.has(engine))) return read(keyword);
  const why = WRITES.has(keyword)
    ? `${keyword} is a write statement`
    : `${keyword} is not a read statement (reads start with SELECT, WITH, SHOW, DESCRIBE, EXPLAIN or VALUES)`;
  return refuse(keyword, why, [keyword]);
}

/** Every CTE body and the main statement must be reads themselves. */
function withStatement(tokens: Token[], lead: number, end: number, engine: Engine): Verdict {
  const clause = parseWith(tokens, lead, end);
  // A second bare WITH as the main statement is no SQL; refusing it also bounds the recursion.
  if (!clause || tokens[clause.mainStart].word === 'WITH') {
    return refuse('WITH', 'the WITH statement could not be understood', []);
  }
  const parts: Array<[number, number, string]> = [
    ...clause.bodies.map(([start, stop]): [number, number, string] => [start, stop, 'inside WITH']),
    [clause.mainStart, end, 'after WITH'],
  ];
  const ops: string[] = [];
  let refusal: string | null = null;
  for (const [start, stop, where] of parts) {
    const verdict = verdictAt(tokens, start, stop, engine);
    if (verdict.isRead) continue;
    ops.push(...verdict.writeOps);
    refusal ??= DML.has(verdict.keyword) ? `writable CTE (${verdict.keyword} ${where})` : verdict.refusal;
  }
  return refusal === null ? read('WITH') : refuse('WITH', refusal, ops);
}

/**
 * EXPLAIN (and MySQL's DESCRIBE/DESC, its synonyms) of a write is refused
 * whether or not ANALYZE makes it run: the explained statement must itself be
 * a read. `DESCRIBE t` and MySQL's `EXPLAIN t` describe a table.
 */
function explain(tokens: Token[], lead: number, end: number, engine: Engine): Verdict {
  const dialect = lexDialect(engine);
  const keyword = tokens[lead].word;
  let i = lead + 1;
  let analyze = false;
  const isAnalyze = (t: Token) => t.word === 'ANALYZE' || t.word === 'ANALYSE';
  if (i < end && isPunct(tokens[i], '(')) {
    const close = closingParen(tokens, i);
    analyze = tokens.slice(i, close).some(isAnalyze);
    i = close + 1;
  }
  while (i < end && EXPLAIN_OPTIONS.has(tokens[i].word)) {
    analyze ||= isAnalyze(tokens[i]);
    // MySQL: FORMAT=JSON.
    i += tokens[i].word === 'FORMAT' && tokens[i + 1]?.text === '=' ? 3 : 1;
  }
  const innerLead = leadingIndex(tokens, i);
  const innerKeyword = innerLead < end ? tokens[innerLead].word : '';
  if (['EXPLAIN', 'DESCRIBE', 'DESC'].includes(innerKeyword)) {
    return refuse(keyword, `${keyword} of ${innerKeyword} is not allowed`, []);
  }
  const verdict = verdictAt(tokens, i, end, engine);
  if (verdict.isRead || describesTable(tokens[i], i < end, keyword, dialect)) return read(keyword);
  const why = analyze
    ? `${keyword} ANALYZE runs its statement, which is a write`
    : `${keyword} is allowed only on a read statement`;
  return refuse(keyword, `${why} (${verdict.refusal})`, verdict.writeOps);
}

function describesTable(first: Token | undefined, present: boolean, keyword: string, dialect: Engine): boolean {
  if (!first || !present || (keyword === 'EXPLAIN' && dialect !== 'mysql')) return false;
  return first.kind === 'quoted' || (first.kind === 'word' && !WRITES.has(first.word) && !READS.has(first.word));
}

/**
 * Data-modifying statements opened by a parenthesis anywhere in the text: a
 * CTE body at any depth, or a `(WITH ... DELETE ...)` group. The next token is
 * checked so the functions MySQL names INSERT() and REPLACE() do not count.
 */
function nestedWrites(tokens: Token[]): string[] {
  const ops: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    if (!isPunct(tokens[i], '(') || isPunct(tokens[i + 1], '(')) continue;
    const close = closingParen(tokens, i);
    const op = dmlAt(tokens, i + 1, close);
    if (op) ops.push(op);
    if (tokens[i + 1]?.word === 'WITH') {
      const clause = parseWith(tokens, i + 1, close);
      const main = clause ? dmlAt(tokens, leadingIndex(tokens, clause.mainStart), close) : null;
      if (main) ops.push(main);
    }
  }
  return [...new Set(ops)];
}

/** The DML keyword starting a statement at `i` (`INSERT INTO`, `DELETE FROM`, `UPDATE t ... SET`...), or null. */
function dmlAt(tokens: Token[], i: number, end: number): string | null {
  const word = tokens[i]?.word ?? '';
  const next = tokens[i + 1];
  if (!DML.has(word) || !next || i + 1 >= end) return null;
  if (word === 'UPDATE') {
    const target = next.kind === 'word' || next.kind === 'quoted';
    return target && tokens.slice(i + 2, end).some((t) => t.word === 'SET') ? word : null;
  }
  if (word === 'DELETE') return next.word === 'FROM' ? word : null;
  // INSERT INTO, INSERT OR REPLACE INTO (sqlite), MERGE INTO, REPLACE INTO.
  return next.word === 'INTO' || (word === 'INSERT' && next.word === 'OR') ? word : null;
}
