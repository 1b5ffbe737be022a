import { describe, expect, test } from 'vitest';
import { inspect } from '../../../origin/sql/index.ts';
import { GUARD_CORPUS } from './corpus.ts';

describe('guard corpus', () => {
  const cases = GUARD_CORPUS.flatMap((c) => c.dialects.map((dialect) => ({ ...c, dialect })));

  test('holds at least 40 statements', () => {
    expect(GUARD_CORPUS.length).toBeGreaterThanOrEqual(40);
  });

  test.each(cases)('$dialect: $sql', ({ sql, dialect, read, refusal, writeOps }) => {
    const info = inspect(sql, dialect);
    expect(info.isRead, info.refusal ?? 'read').toBe(read);
    if (read) expect(info.refusal).toBeNull();
    else expect(info.refusal).toBeTruthy();
    if (refusal) expect(info.refusal).toContain(refusal);
    if (writeOps) expect(info.writeOps).toEqual(writeOps);
  });
});

describe('inspect', () => {
  test('a read reports no write operations', () => {
    expect(inspect('SELECT 1', 'postgres')).toEqual({
      statementCount: 1,
      keyword: 'SELECT',
      isRead: true,
      refusal: null,
      writeOps: [],
      markers: [],
    });
  });

  test('the keyword is the first statement’s, after opening parentheses', () => {
    expect(inspect('((select 1))', 'postgres').keyword).toBe('SELECT');
    expect(inspect('insert into t values (1); select 1', 'postgres').keyword).toBe('INSERT');
    expect(inspect('', 'postgres').keyword).toBe('');
    expect(inspect("'abc'", 'postgres')).toMatchObject({ keyword: '', isRead: false });
  });

  test('write operations of every statement are reported', () => {
    expect(inspect('insert into t values (1); delete from t', 'sqlite').writeOps).toEqual(['INSERT', 'DELETE']);
  });

  test('SELECT ... FOR UPDATE / FOR SHARE is left to the read-only transaction', () => {
    expect(inspect('select * from t for update', 'postgres').isRead).toBe(true);
    expect(inspect('select * from t for share', 'mysql').isRead).toBe(true);
    expect(inspect('select * from t lock in share mode', 'mysql').isRead).toBe(true);
  });

  test('functions named like statements are not statements', () => {
    expect(inspect('select (update) from t', 'postgres').isRead).toBe(true);
    expect(inspect("select (replace(a, 'x', 'y')) from t", 'sqlite').isRead).toBe(true);
    expect(inspect("select (insert('abc', 1, 1, 'x'))", 'mysql').isRead).toBe(true);
  });

  test('writable CTE forms: column lists, NOT MATERIALIZED, SEARCH/CYCLE, several CTEs', () => {
    const reads = [
      'WITH a(x, y) AS (SELECT 1, 2) SELECT * FROM a',
      'WITH a AS NOT MATERIALIZED (SELECT 1) SELECT * FROM a',
      'WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SEARCH DEPTH FIRST BY n SET o SELECT * FROM t',
      'WITH RECURSIVE t(n) AS (SELECT 1) CYCLE n, m SET c USING p, u AS (SELECT 2) SELECT * FROM t, u',
      'WITH a AS (SELECT 1) (SELECT * FROM a)',
    ];
    for (const sql of reads) expect(inspect(sql, 'postgres').refusal, sql).toBeNull();
    const writes = [
      'WITH RECURSIVE t(n) AS (SELECT 1) CYCLE n SET c USING p, u AS (DELETE FROM x RETURNING 1) SELECT * FROM t',
      'WITH a AS (SELECT 1) UPDATE t SET x = 1',
      'WITH a AS (SELECT 1) MERGE INTO t USING a ON true WHEN MATCHED THEN DELETE',
    ];
    for (const sql of writes) expect(inspect(sql, 'postgres').isRead, sql).toBe(false);
  });

  test('a WITH whose shape is not understood is refused', () => {
    expect(inspect('WITH SELECT 1', 'postgres').refusal).toContain('could not be understood');
  });

  test('EXPLAIN of EXPLAIN and a bare WITH after WITH are refused', () => {
    expect(inspect('EXPLAIN EXPLAIN SELECT 1', 'postgres').refusal).toContain('EXPLAIN of EXPLAIN');
    expect(inspect('WITH a AS (SELECT 1) WITH b AS (SELECT 2) SELECT 1', 'postgres').isRead).toBe(false);
  });

  test('nesting deeper than any database needs is refused', () => {
    const deep = `SELECT ${'('.repeat(300)}1${')'.repeat(300)}`;
    expect(inspect(deep, 'postgres').refusal).toContain('nest');
    const fine = `SELECT ${'('.repeat(100)}1${')'.repeat(100)}`;
    expect(inspect(fine, 'postgres').isRead).toBe(true);
  });

  test('DuckDB USING KEY between the CTE name and AS', () => {
    const sql = 'WITH RECURSIVE t(k, v) USING KEY (k) AS (SELECT 1, 2) SELECT * FROM t';
    expect(inspect(sql, 'duckdb').isRead).toBe(true);
  });

  test('markers are reported in order of first appearance, once each', () => {
    expect(inspect('select :b, :a, :b, \':c\' -- :d', 'postgres').markers).toEqual(['b', 'a']);
  });

  test('a multi-statement refusal names the count', () => {
    expect(inspect('select 1; select 2; select 3', 'duckdb').refusal).toContain('3');
  });

  test('MySQL executable comments are refused even with hints allowed', () => {
    expect(inspect('SELECT /*+ MAX_EXECUTION_TIME(1000) */ 1', 'mysql').isRead).toBe(true);
    expect(inspect('SELECT /*!32302 1 */', 'mysql').isRead).toBe(false);
    // In other dialects it is an ordinary comment.
    expect(inspect('SELECT 1 /*! x */', 'postgres').isRead).toBe(true);
  });
});
