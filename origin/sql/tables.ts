import type { Dialect } from '../drivers/types.ts';
import { lexDialect, type Engine } from './engine.ts';
import { inspect } from './inspect.ts';
import { executableComment } from './mysql.ts';
import { splitStatements } from './statements.ts';
import { Reader, Unreadable } from './table-reader.ts';
import { codeTokens, tokenize, type MysqlQuoting } from './tokenizer.ts';

/**
 * Which tables a statement reads or writes, and how it joins them: a best
 * effort over the token stream, no full parser. Labels:
 *
 * - a table: its name as written, quotes stripped (`""`/```` `` ```` escapes
 *   undone), schema parts joined by `.`. Unquoted names are lower-cased in
 *   postgres (which folds them); duckdb and sqlite compare every identifier
 *   without case, so all are lower-cased there; mysql keeps names as written
 *   (its table names are case-sensitive on most servers). A part holding `.`,
 *   `:` or `"` is shown double-quoted. The default schema is not added:
 *   `films` and `public.films` are two labels.
 * - `function:<name>` for a table function (`read_csv(...)`, `generate_series(...)`);
 * - `file:<path>` for a duckdb file scan (`FROM 'films.csv'`);
 * - in joins only: `cte:<name>` for a CTE and `subquery` for a derived table
 *   (CTE names are never tables, scoped as the database scopes them).
 */
export interface Join {
  left: string;
  right: string;
  /** The join's words upper-cased without OUTER: INNER (a bare JOIN), LEFT, RIGHT, FULL, CROSS (also a comma join), NATURAL, NATURAL LEFT, SEMI, ANTI, ASOF, POSITIONAL, STRAIGHT (MySQL STRAIGHT_JOIN). */
  type: string;
  /** The ON condition as written, `USING (...)` as written, or null. */
  on: string | null;
}

export interface TableAnalysis {
  /** Distinct labels in order of first appearance. */
  tables: string[];
  joins: Join[];
  /** Why the text could not be analysed; `tables` and `joins` are then empty. */
  error: string | null;
}

/** Legacy `{name}` placeholders: text pasted in before the run can change what is read. */
const LEGACY_PLACEHOLDER = /\{[A-Za-z_][A-Za-z0-9_]*\}/;

/**
 * Best effort, for display (the flow view, validate): every statement of the
 * text is read. Text it cannot follow (unbalanced parentheses, a FROM clause
 * it does not understand, a table given as a parameter or `{placeholder}`,
 * MySQL executable comments) gives `error` rather than a guess; it never throws.
 */
export function analyzeTables(sql: string, dialect: Dialect): TableAnalysis {
  const { tables, joins, error } = analyze(sql, dialect, 'default');
  return { tables, joins, error };
}

/** Writes whose target and sources the reader names (`INSERT ... SELECT`, `UPDATE ... FROM`, `DELETE ... USING`, `MERGE ... USING`). */
const DML = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE', 'REPLACE']);

/**
 * The tables a read certainly touches, for access control; null whenever
 * that is not certain: text not analysed, more or other than one plain read
 * (SELECT, WITH, VALUES, TABLE), dynamic SQL (`query(...)`, `dblink(...)`...),
 * legacy `{name}` placeholders, or MySQL text whose tables depend on the
 * server's sql_mode. With `writes`, one plain data change (INSERT, UPDATE,
 * DELETE, MERGE, REPLACE, also in a WITH) is analysed too, its target among
 * the tables; triggers and rules it fires are not shown by the text.
 * `function:` and `file:` labels are kept: the caller decides about them.
 * Functions called in expressions are not followed (a user function may read
 * any table): grants should account for that.
 */
export function tablesOrNull(sql: string, engine: Engine, { writes = false } = {}): string[] | null {
  if (LEGACY_PLACEHOLDER.test(sql)) return null;
  const dialect = lexDialect(engine);
  const info = inspect(sql, engine);
  const read = info.isRead && ['SELECT', 'WITH', 'VALUES', 'TABLE'].includes(info.keyword);
  const change =
    writes &&
    info.statementCount === 1 &&
    info.writeOps.length > 0 &&
    info.writeOps.every((op) => DML.has(op)) &&
    (DML.has(info.keyword) || info.keyword === 'WITH');
  if (!read && !change) return null;
  const result = analyze(sql, dialect, 'default');
  if (result.error !== null || result.dynamic) return null;
  if (dialect === 'mysql') {
    for (const mode of ['ansi_quotes', 'no_backslash_escapes'] as const) {
      const other = analyze(sql, dialect, mode);
      if (other.error !== null || other.dynamic || other.tables.join('\n') !== result.tables.join('\n')) return null;
    }
  }
  return result.tables;
}

function analyze(sql: string, dialect: Dialect, quoting: MysqlQuoting): TableAnalysis & { dynamic: boolean } {
  const tokens = tokenize(sql, dialect, quoting);
  try {
    if (dialect === 'mysql' && executableComment(tokens)) throw new Unreadable('MySQL executable comments (/*! */) cannot be analysed');
    const statements = splitStatements(codeTokens(tokens));
    if (statements.length === 0) throw new Unreadable('the text holds no SQL statement');
    const reader = new Reader(sql, dialect);
    for (const statement of statements) reader.statement(statement);
    return { tables: [...reader.tables], joins: reader.joins, error: null, dynamic: reader.dynamic };
  } catch (err) {
    if (!(err instanceof Unreadable)) throw err;
    return { tables: [], joins: [], error: err.message, dynamic: false };
  }
}
