import type { Dialect } from '../../../origin/drivers/types.ts';
import { SIDE_EFFECT_CORPUS } from './corpus-side-effects.ts';

/**
 * Data shared by the SQL unit tests and any black-box test that runs the same
 * statements against real databases. Reads use only the table
 * `sluice_probe (id integer, name text)`; refused statements never reach a
 * database, so they name whatever tables they like.
 */
export const PROBE_TABLE = 'sluice_probe';

const ALL: Dialect[] = ['postgres', 'mysql', 'duckdb', 'sqlite', 'clickhouse', 'jdbc'];
const PG: Dialect[] = ['postgres', 'duckdb'];
/** ClickHouse's UPDATE and DELETE need a WHERE clause: it has its own spellings of those writes below. */
const ALL_BUT_CLICKHOUSE: Dialect[] = ['postgres', 'mysql', 'duckdb', 'sqlite', 'jdbc'];

export interface GuardCase {
  sql: string;
  dialects: Dialect[];
  read: boolean;
  /** A fragment the refusal must contain. */
  refusal?: string;
  /** The exact write operations reported. */
  writeOps?: string[];
  /**
   * False for a read the guard lets through that a database still rejects: a
   * read-only transaction refuses FOR UPDATE, MariaDB has no VALUES ROW().
   */
  runs?: boolean;
}

export const GUARD_CORPUS: GuardCase[] = [
  // Plain reads.
  { sql: 'SELECT 1', dialects: ALL, read: true },
  { sql: 'select id, name from sluice_probe where id = 1', dialects: ALL, read: true },
  { sql: 'SELECT 1;', dialects: ALL, read: true },
  { sql: '(SELECT 1)', dialects: ['postgres', 'mysql', 'duckdb'], read: true },
  { sql: 'WITH x AS (SELECT 1 AS a) SELECT a FROM x', dialects: ALL, read: true },
  {
    sql: 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT n FROM r',
    dialects: ALL,
    read: true,
  },
  { sql: 'WITH "update" AS (SELECT 1 AS a) SELECT a FROM "update"', dialects: ['postgres', 'duckdb', 'sqlite'], read: true },
  { sql: 'SELECT id FROM sluice_probe WHERE id IN (SELECT id FROM sluice_probe LIMIT 1)', dialects: ['postgres', 'duckdb', 'sqlite'], read: true },
  { sql: 'SHOW search_path', dialects: ['postgres'], read: true },
  { sql: 'SHOW TABLES', dialects: ['mysql', 'duckdb'], read: true },
  { sql: 'DESCRIBE sluice_probe', dialects: ['mysql', 'duckdb'], read: true },
  { sql: 'DESC sluice_probe', dialects: ['mysql'], read: true },
  { sql: 'EXPLAIN SELECT 1', dialects: ['postgres', 'mysql', 'duckdb'], read: true },
  { sql: 'EXPLAIN QUERY PLAN SELECT * FROM sluice_probe', dialects: ['sqlite'], read: true },
  { sql: 'EXPLAIN (FORMAT JSON) SELECT * FROM sluice_probe', dialects: ['postgres'], read: true },
  { sql: 'EXPLAIN ANALYZE SELECT * FROM sluice_probe', dialects: PG, read: true },
  { sql: 'EXPLAIN FORMAT=JSON SELECT 1', dialects: ['mysql'], read: true },
  { sql: 'EXPLAIN sluice_probe', dialects: ['mysql'], read: true },
  { sql: 'VALUES (1), (2)', dialects: ['postgres', 'duckdb', 'sqlite'], read: true },
  { sql: 'VALUES ROW(1), ROW(2)', dialects: ['mysql'], read: true, runs: false },
  { sql: "SELECT replace(name, 'a', 'b') FROM sluice_probe", dialects: ALL, read: true },
  { sql: "SELECT INSERT('abc', 1, 1, 'x')", dialects: ['mysql'], read: true },
  { sql: 'SELECT id FROM sluice_probe FOR UPDATE', dialects: ['postgres', 'mysql'], read: true, runs: false },

  // Keywords inside strings, comments, quoted identifiers and dollar quotes do not count.
  { sql: "SELECT 'insert into t values (1); drop table t'", dialects: ALL, read: true },
  { sql: "SELECT name FROM sluice_probe WHERE name = 'x'' ; DELETE FROM t --'", dialects: ALL, read: true },
  { sql: 'SELECT 1 -- ; DROP TABLE t', dialects: ALL, read: true },
  { sql: 'SELECT 1 /* ; DELETE FROM t */', dialects: ALL, read: true },
  { sql: 'SELECT 1 AS "into"', dialects: ['postgres', 'duckdb', 'sqlite'], read: true },
  { sql: 'SELECT 1 AS `into`', dialects: ['mysql', 'sqlite'], read: true },
  { sql: 'SELECT 1 AS [into]', dialects: ['sqlite'], read: true },
  { sql: 'SELECT $$ ; drop table t $$', dialects: PG, read: true },
  { sql: 'SELECT $fn$ ; DELETE FROM t; $fn$ AS body', dialects: PG, read: true },
  { sql: "SELECT E'it\\'s ; delete from t'", dialects: PG, read: true },
  { sql: 'SELECT 1 /* outer /* inner */ ; DROP TABLE t */', dialects: PG, read: true },
  { sql: 'SELECT 1 # ; DROP TABLE t', dialects: ['mysql'], read: true },
  { sql: "SELECT 'a\\'; DROP TABLE t; -- '", dialects: ['mysql'], read: true },
  { sql: 'SELECT "say \\" ; delete from t" AS s', dialects: ['mysql'], read: true },
  { sql: 'SELECT 1--1', dialects: ['mysql'], read: true },
  { sql: 'SELECT 1 -- x INTO OUTFILE', dialects: ['mysql'], read: true },

  // Write statements and everything that is not a read keyword.
  { sql: 'INSERT INTO t VALUES (1)', dialects: ALL, read: false, refusal: 'INSERT is a write statement', writeOps: ['INSERT'] },
  { sql: 'UPDATE t SET a = 1', dialects: ALL_BUT_CLICKHOUSE, read: false, writeOps: ['UPDATE'] },
  { sql: 'delete from t', dialects: ALL_BUT_CLICKHOUSE, read: false, writeOps: ['DELETE'] },
  { sql: 'UPDATE t SET a = 1 WHERE a = 1', dialects: ['clickhouse'], read: false, writeOps: ['UPDATE'] },
  { sql: 'DELETE FROM t WHERE a = 1', dialects: ['clickhouse'], read: false, writeOps: ['DELETE'] },
  { sql: 'MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE', dialects: PG, read: false, writeOps: ['MERGE'] },
  { sql: 'CREATE TABLE t (a int)', dialects: ALL, read: false, writeOps: ['CREATE'] },
  { sql: 'DROP TABLE t', dialects: ALL, read: false, writeOps: ['DROP'] },
  { sql: 'ALTER TABLE t ADD b int', dialects: ALL, read: false, writeOps: ['ALTER'] },
  { sql: 'TRUNCATE t', dialects: ['postgres', 'mysql', 'duckdb'], read: false, writeOps: ['TRUNCATE'] },
  { sql: "COPY t TO '/tmp/x.csv'", dialects: PG, read: false, writeOps: ['COPY'] },
  { sql: "COPY (SELECT 1) TO PROGRAM 'id'", dialects: ['postgres'], read: false, writeOps: ['COPY'] },
  { sql: "ATTACH 'x.db' AS x", dialects: ['sqlite', 'duckdb'], read: false, writeOps: ['ATTACH'] },
  { sql: 'PRAGMA writable_schema = 1', dialects: ['sqlite', 'duckdb'], read: false, writeOps: ['PRAGMA'] },
  { sql: 'SET search_path = evil', dialects: ['postgres', 'duckdb'], read: false, writeOps: ['SET'] },
  { sql: 'SET @a = 1', dialects: ['mysql'], read: false, writeOps: ['SET'] },
  { sql: 'CALL p()', dialects: ['postgres', 'mysql', 'duckdb'], read: false, writeOps: ['CALL'] },
  { sql: 'INSTALL httpfs', dialects: ['duckdb'], read: false, writeOps: ['INSTALL'] },
  { sql: 'LOAD httpfs', dialects: ['duckdb'], read: false, writeOps: ['LOAD'] },
  { sql: 'GRANT ALL ON t TO u', dialects: ['postgres', 'mysql'], read: false, writeOps: ['GRANT'] },
  { sql: 'REPLACE INTO t VALUES (1)', dialects: ['mysql', 'sqlite'], read: false, writeOps: ['REPLACE'] },
  { sql: 'DO $$ BEGIN DELETE FROM t; END $$', dialects: ['postgres'], read: false, writeOps: ['DO'] },
  { sql: 'DO SLEEP(1)', dialects: ['mysql'], read: false, writeOps: ['DO'] },
  { sql: 'LOCK TABLES t WRITE', dialects: ['mysql'], read: false, writeOps: ['LOCK'] },
  { sql: 'BEGIN', dialects: ALL, read: false },
  { sql: 'ANALYZE SELECT 1', dialects: ['mysql'], read: false, refusal: 'ANALYZE is a write statement' },
  // `TABLE t` is `SELECT * FROM t` in PostgreSQL and DuckDB; no statement in SQLite, MariaDB, ClickHouse.
  { sql: 'TABLE sluice_probe', dialects: ['postgres', 'duckdb'], read: true },
  { sql: 'TABLE t', dialects: ['sqlite', 'clickhouse', 'jdbc'], read: false, refusal: 'TABLE' },
  { sql: 'FROM t', dialects: ['duckdb'], read: false, refusal: 'FROM is not a read statement' },
  { sql: 'DESC t', dialects: ['postgres', 'duckdb', 'sqlite'], read: false },
  { sql: 'PREPARE p AS DELETE FROM t', dialects: ['postgres'], read: false, writeOps: ['PREPARE'] },
  { sql: "VACUUM INTO '/tmp/copy.db'", dialects: ['sqlite'], read: false, writeOps: ['VACUUM'] },
  { sql: '(DELETE FROM t)', dialects: ALL, read: false, writeOps: ['DELETE'] },

  // Writable CTEs.
  { sql: 'WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d', dialects: ['postgres'], read: false, refusal: 'writable CTE (DELETE inside WITH)', writeOps: ['DELETE'] },
  { sql: 'WITH u AS (UPDATE t SET a = 1 RETURNING *) SELECT * FROM u', dialects: ['postgres'], read: false, refusal: 'writable CTE (UPDATE inside WITH)', writeOps: ['UPDATE'] },
  { sql: 'WITH i AS (INSERT INTO t VALUES (1) RETURNING *) SELECT * FROM i', dialects: ['postgres'], read: false, writeOps: ['INSERT'] },
  { sql: 'WITH x AS (SELECT 1 AS a) INSERT INTO t SELECT a FROM x', dialects: ['postgres', 'duckdb', 'sqlite'], read: false, refusal: 'writable CTE (INSERT after WITH)', writeOps: ['INSERT'] },
  { sql: 'WITH x AS (SELECT 1) DELETE FROM t', dialects: ['postgres', 'sqlite'], read: false, writeOps: ['DELETE'] },
  { sql: 'WITH RECURSIVE a AS (SELECT 1), b AS MATERIALIZED (DELETE FROM t RETURNING 1) SELECT * FROM a', dialects: ['postgres'], read: false, writeOps: ['DELETE'] },
  { sql: 'WITH d AS (DELETE FROM t RETURNING *) INSERT INTO u SELECT * FROM d', dialects: ['postgres'], read: false, writeOps: ['DELETE', 'INSERT'] },
  { sql: 'WITH a AS (WITH b AS (SELECT 1) DELETE FROM t RETURNING *) SELECT * FROM a', dialects: ['postgres'], read: false, writeOps: ['DELETE'] },
  { sql: 'SELECT * FROM (WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d) s', dialects: ['postgres'], read: false, writeOps: ['DELETE'] },
  { sql: 'SELECT * FROM t WHERE a IN (WITH x AS (SELECT 1) DELETE FROM t RETURNING a)', dialects: ['postgres'], read: false, writeOps: ['DELETE'] },

  // SELECT ... INTO at any depth.
  { sql: 'SELECT * INTO t2 FROM t', dialects: ['postgres'], read: false, refusal: 'SELECT ... INTO writes', writeOps: ['CREATE'] },
  { sql: 'SELECT * FROM (SELECT 1 INTO t2) s', dialects: ['postgres'], read: false, refusal: 'INTO' },
  { sql: "SELECT * FROM t INTO OUTFILE '/tmp/x'", dialects: ['mysql'], read: false, refusal: 'SELECT ... INTO writes', writeOps: ['SELECT INTO'] },
  { sql: "SELECT 1 INTO DUMPFILE '/tmp/x'", dialects: ['mysql'], read: false, refusal: 'INTO' },
  { sql: 'SELECT 1 INTO @v', dialects: ['mysql'], read: false, refusal: 'INTO' },
  { sql: "SELECT 1 --x INTO OUTFILE '/tmp/f'", dialects: ['mysql'], read: false, refusal: 'INTO' },

  // EXPLAIN of a write, with or without ANALYZE.
  { sql: 'EXPLAIN ANALYZE DELETE FROM t', dialects: ['postgres', 'mysql', 'duckdb'], read: false, refusal: 'EXPLAIN ANALYZE runs its statement, which is a write', writeOps: ['DELETE'] },
  { sql: 'EXPLAIN (ANALYZE, BUFFERS) DELETE FROM t', dialects: ['postgres'], read: false, refusal: 'EXPLAIN ANALYZE runs its statement', writeOps: ['DELETE'] },
  { sql: 'EXPLAIN DELETE FROM t', dialects: ALL, read: false, writeOps: ['DELETE'] },
  { sql: 'EXPLAIN (ANALYZE) WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d', dialects: ['postgres'], read: false, writeOps: ['DELETE'] },
  { sql: 'EXPLAIN ANALYZE EXECUTE p', dialects: ['postgres'], read: false, writeOps: ['EXECUTE'] },
  { sql: 'EXPLAIN FORMAT=JSON UPDATE t SET a = 1', dialects: ['mysql'], read: false, writeOps: ['UPDATE'] },
  { sql: 'DESCRIBE DELETE FROM t', dialects: ['mysql'], read: false, writeOps: ['DELETE'] },
  { sql: 'EXPLAIN QUERY PLAN INSERT INTO t VALUES (1)', dialects: ['sqlite'], read: false, writeOps: ['INSERT'] },

  // MySQL executable comments and quoting that depends on sql_mode.
  { sql: "SELECT 1 /*!50000 INTO OUTFILE '/tmp/x' */", dialects: ['mysql'], read: false, refusal: 'executable comments' },
  { sql: 'SELECT 1 /*M! , sleep(1) */', dialects: ['mysql'], read: false, refusal: 'executable comments' },
  { sql: "SELECT 'a\\' INTO OUTFILE '/tmp/x' -- '", dialects: ['mysql'], read: false, refusal: 'NO_BACKSLASH_ESCAPES' },
  { sql: "SELECT \"a\\\" INTO OUTFILE '/tmp/x' -- \"", dialects: ['mysql'], read: false, refusal: 'ANSI_QUOTES' },

  // More than one statement, or none.
  { sql: 'SELECT 1; DROP TABLE t', dialects: ALL, read: false, refusal: 'only one statement' },
  { sql: 'SELECT 1; SELECT 2', dialects: ALL, read: false, refusal: 'only one statement' },
  { sql: "SELECT 'a\\'; DROP TABLE t; -- '", dialects: ['postgres', 'duckdb', 'sqlite'], read: false, refusal: 'only one statement' },
  { sql: "SELECT E'\\''; DELETE FROM t", dialects: PG, read: false, refusal: 'only one statement' },
  { sql: '/* c */ SELECT $$ ; $$; DELETE FROM t', dialects: PG, read: false, refusal: 'only one statement' },
  { sql: 'SELECT 1 /* outer /* inner */ ; DROP TABLE t */', dialects: ['mysql', 'sqlite'], read: false, refusal: 'only one statement' },
  { sql: 'SELECT 1 # ; DROP TABLE t', dialects: ['postgres', 'sqlite'], read: false, refusal: 'only one statement' },
  { sql: '-- nothing here', dialects: ALL, read: false, refusal: 'no SQL statement' },

  // Functions with side effects, and their look-alikes.
  ...SIDE_EFFECT_CORPUS,
];

/** A row source of 1..100 every dialect understands; window examples page over it. */
export const SERIES = 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100)';

export interface WindowPage {
  page: number;
  /** The first column of each row on the page. */
  rows: number[];
  hasMore: boolean;
}

export interface WindowExample {
  name: string;
  dialects: Dialect[];
  sql: string;
  params?: Record<string, unknown>;
  pageSize: number;
  pages: WindowPage[];
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, k) => from + k);

export const WINDOW_EXAMPLES: WindowExample[] = [
  {
    name: 'LIMIT 3 returns at most 3 rows whatever the page size',
    dialects: ALL,
    sql: `${SERIES} SELECT i FROM n ORDER BY i LIMIT 3`,
    pageSize: 10,
    pages: [{ page: 1, rows: [1, 2, 3], hasMore: false }, { page: 2, rows: [], hasMore: false }],
  },
  {
    name: 'LIMIT 25 with page_size 10 gives 10, 10, 5',
    dialects: ALL,
    sql: `${SERIES} SELECT i FROM n ORDER BY i LIMIT 25`,
    pageSize: 10,
    pages: [
      { page: 1, rows: range(1, 10), hasMore: true },
      { page: 2, rows: range(11, 20), hasMore: true },
      { page: 3, rows: range(21, 25), hasMore: false },
      { page: 4, rows: [], hasMore: false },
    ],
  },
  {
    name: 'no window: pages until the rows run out',
    dialects: ALL,
    sql: `${SERIES} SELECT i FROM n ORDER BY i`,
    pageSize: 10,
    pages: [
      { page: 1, rows: range(1, 10), hasMore: true },
      { page: 10, rows: range(91, 100), hasMore: false },
      { page: 11, rows: [], hasMore: false },
    ],
  },
  {
    name: 'LIMIT n OFFSET m',
    dialects: ALL,
    sql: `${SERIES} SELECT i FROM n ORDER BY i LIMIT 10 OFFSET 5`,
    pageSize: 4,
    pages: [
      { page: 1, rows: [6, 7, 8, 9], hasMore: true },
      { page: 2, rows: [10, 11, 12, 13], hasMore: true },
      { page: 3, rows: [14, 15], hasMore: false },
    ],
  },
  {
    name: 'LIMIT m, n (offset m, count n)',
    dialects: ['mysql', 'sqlite'],
    sql: `${SERIES} SELECT i FROM n ORDER BY i LIMIT 5, 10`,
    pageSize: 4,
    pages: [{ page: 1, rows: [6, 7, 8, 9], hasMore: true }, { page: 3, rows: [14, 15], hasMore: false }],
  },
  {
    name: 'LIMIT ALL is no limit',
    dialects: PG,
    sql: `${SERIES} SELECT i FROM n ORDER BY i LIMIT ALL`,
    pageSize: 10,
    pages: [{ page: 9, rows: range(81, 90), hasMore: true }, { page: 10, rows: range(91, 100), hasMore: false }],
  },
  {
    name: 'OFFSET alone',
    dialects: PG,
    sql: `${SERIES} SELECT i FROM n ORDER BY i OFFSET 95`,
    pageSize: 3,
    pages: [{ page: 1, rows: [96, 97, 98], hasMore: true }, { page: 2, rows: [99, 100], hasMore: false }],
  },
  {
    name: 'OFFSET m ROWS FETCH NEXT n ROWS ONLY',
    dialects: ['postgres'],
    sql: `${SERIES} SELECT i FROM n ORDER BY i OFFSET 90 ROWS FETCH NEXT 5 ROWS ONLY`,
    pageSize: 2,
    pages: [{ page: 1, rows: [91, 92], hasMore: true }, { page: 3, rows: [95], hasMore: false }],
  },
  {
    name: 'FETCH FIRST n ROWS ONLY',
    dialects: ['postgres'],
    sql: `${SERIES} SELECT i FROM n ORDER BY i FETCH FIRST 3 ROWS ONLY`,
    pageSize: 2,
    pages: [{ page: 1, rows: [1, 2], hasMore: true }, { page: 2, rows: [3], hasMore: false }],
  },
  {
    name: 'FETCH FIRST ROW ONLY is one row',
    dialects: ['postgres'],
    sql: `${SERIES} SELECT i FROM n ORDER BY i FETCH FIRST ROW ONLY`,
    pageSize: 10,
    pages: [{ page: 1, rows: [1], hasMore: false }],
  },
  {
    name: 'bound window numbers (a query-string value is digits)',
    dialects: ALL,
    sql: `${SERIES} SELECT i FROM n ORDER BY i LIMIT :n OFFSET :o`,
    params: { n: '25', o: 10 },
    pageSize: 10,
    pages: [{ page: 2, rows: range(21, 30), hasMore: true }, { page: 3, rows: range(31, 35), hasMore: false }],
  },
  {
    name: 'a window marker also used in the statement keeps its value there',
    dialects: ALL,
    sql: `${SERIES} SELECT i FROM n WHERE i <= :n ORDER BY i LIMIT :n`,
    params: { n: 5 },
    pageSize: 2,
    pages: [{ page: 2, rows: [3, 4], hasMore: true }, { page: 3, rows: [5], hasMore: false }],
  },
  {
    name: 'LIMIT 0',
    dialects: ALL,
    sql: `${SERIES} SELECT i FROM n ORDER BY i LIMIT 0`,
    pageSize: 10,
    pages: [{ page: 1, rows: [], hasMore: false }],
  },
  {
    name: 'the window runs past the last row',
    dialects: ALL,
    sql: `${SERIES} SELECT i FROM n ORDER BY i LIMIT 5 OFFSET 98`,
    pageSize: 10,
    pages: [{ page: 1, rows: [99, 100], hasMore: false }],
  },
  {
    name: 'a LIMIT in a subquery belongs to the subquery',
    dialects: ALL,
    sql: `SELECT i FROM (${SERIES} SELECT i FROM n ORDER BY i LIMIT 50) s ORDER BY i`,
    pageSize: 20,
    pages: [{ page: 2, rows: range(21, 40), hasMore: true }, { page: 3, rows: range(41, 50), hasMore: false }],
  },
  {
    name: 'LIMIT inside a string or a comment is not a window',
    dialects: ALL,
    sql: `${SERIES} SELECT i FROM n WHERE 'LIMIT 3' <> '' ORDER BY i /* LIMIT 3 */ -- LIMIT 3`,
    pageSize: 10,
    pages: [{ page: 10, rows: range(91, 100), hasMore: false }],
  },
  {
    name: 'trailing semicolon and comment after the window',
    dialects: ALL,
    sql: `${SERIES} SELECT i FROM n ORDER BY i LIMIT 25; -- the end`,
    pageSize: 10,
    pages: [{ page: 3, rows: range(21, 25), hasMore: false }],
  },
  {
    name: 'a window over a compound select',
    // ClickHouse's LIMIT here takes 4 rows of the second SELECT only.
    dialects: ALL_BUT_CLICKHOUSE,
    sql: `${SERIES} SELECT i FROM n WHERE i <= 3 UNION ALL SELECT i FROM n WHERE i > 98 ORDER BY i LIMIT 4`,
    pageSize: 3,
    pages: [{ page: 1, rows: [1, 2, 3], hasMore: true }, { page: 2, rows: [99], hasMore: false }],
  },
  {
    name: 'VALUES',
    dialects: ['postgres', 'duckdb', 'sqlite'],
    sql: 'VALUES (1), (2), (3)',
    pageSize: 2,
    pages: [{ page: 1, rows: [1, 2], hasMore: true }, { page: 2, rows: [3], hasMore: false }],
  },
  {
    name: 'a window expression is left to the database (paged client-side)',
    dialects: ['postgres', 'duckdb', 'sqlite'],
    sql: `${SERIES} SELECT i FROM n ORDER BY i LIMIT 20 + 5`,
    pageSize: 10,
    pages: [{ page: 2, rows: range(11, 20), hasMore: true }, { page: 3, rows: range(21, 25), hasMore: false }],
  },
  {
    name: 'FETCH ... WITH TIES is left to the database (paged client-side)',
    dialects: ['postgres'],
    sql: `${SERIES} SELECT i FROM n ORDER BY i FETCH FIRST 5 ROWS WITH TIES`,
    pageSize: 2,
    pages: [{ page: 3, rows: [5], hasMore: false }],
  },
];
