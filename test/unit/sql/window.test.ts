import { describe, expect, test } from 'vitest';
import type { Dialect } from '../../../origin/drivers/types.ts';
import { SluiceError } from '../../../origin/errors.ts';
import { ownLimit, plan } from '../../../origin/sql/index.ts';

const page = (sql: string, p: number, size: number, dialect: Dialect = 'postgres', params: Record<string, unknown> = {}) =>
  plan(sql, dialect, params, { page: p, pageSize: size });

/** A page folded into the statement; for PostgreSQL also the text with its values written in (here the same: no markers). */
const rewritten = (text: string, take: number, probe: boolean, dialect: Dialect = 'postgres') => ({
  text,
  values: [],
  skip: 0,
  take,
  probe,
  rowsAtMost: take + (probe ? 1 : 0),
  ...(dialect === 'postgres' ? { inlined: text } : {}),
});

describe('the spec examples', () => {
  test('LIMIT 3 returns at most 3 rows whatever page_size is', () => {
    expect(page('SELECT * FROM t LIMIT 3', 1, 10)).toEqual(rewritten('SELECT * FROM t LIMIT 3', 3, false));
    expect(page('SELECT * FROM t LIMIT 3', 1, 2)).toEqual(rewritten('SELECT * FROM t LIMIT 3', 2, true));
    expect(page('SELECT * FROM t LIMIT 3', 2, 2)).toEqual(rewritten('SELECT * FROM t LIMIT 1 OFFSET 2', 1, false));
    expect(page('SELECT * FROM t LIMIT 3', 2, 10)).toEqual(rewritten('SELECT * FROM t LIMIT 0', 0, false));
  });

  test('LIMIT 25 with page_size=10 gives pages of 10, 10 and 5, then none', () => {
    const sql = 'SELECT * FROM t LIMIT 25';
    expect(page(sql, 1, 10)).toEqual(rewritten('SELECT * FROM t LIMIT 11', 10, true));
    expect(page(sql, 2, 10)).toEqual(rewritten('SELECT * FROM t LIMIT 11 OFFSET 10', 10, true));
    expect(page(sql, 3, 10)).toEqual(rewritten('SELECT * FROM t LIMIT 5 OFFSET 20', 5, false));
    expect(page(sql, 4, 10)).toEqual(rewritten('SELECT * FROM t LIMIT 0', 0, false));
  });

  test('a window exactly one page long needs no probe', () => {
    expect(page('SELECT * FROM t LIMIT 20', 2, 10)).toEqual(rewritten('SELECT * FROM t LIMIT 10 OFFSET 10', 10, false));
  });
});

describe('window forms', () => {
  test('no window: one is appended, with a probe row', () => {
    expect(page('SELECT * FROM t', 3, 10)).toEqual(rewritten('SELECT * FROM t LIMIT 11 OFFSET 20', 10, true));
  });

  test('LIMIT n OFFSET m, and OFFSET m LIMIT n', () => {
    expect(page('SELECT * FROM t LIMIT 10 OFFSET 5', 3, 4).text).toBe('SELECT * FROM t LIMIT 2 OFFSET 13');
    expect(page('SELECT * FROM t OFFSET 5 LIMIT 10', 1, 4).text).toBe('SELECT * FROM t LIMIT 5 OFFSET 5');
  });

  test('LIMIT m, n is offset m, count n in mysql and sqlite', () => {
    for (const dialect of ['mysql', 'sqlite'] as const) {
      expect(page('SELECT * FROM t LIMIT 5, 10', 1, 4, dialect)).toEqual(
        rewritten('SELECT * FROM t LIMIT 5 OFFSET 5', 4, true, dialect),
      );
      expect(page('SELECT * FROM t LIMIT 5, 10', 3, 4, dialect).text).toBe('SELECT * FROM t LIMIT 2 OFFSET 13');
    }
  });

  test('LIMIT m, n is not rewritten where the dialect has no such form', () => {
    expect(page('SELECT * FROM t LIMIT 5, 10', 2, 4, 'postgres')).toEqual({
      text: 'SELECT * FROM t LIMIT 5, 10',
      values: [],
      skip: 4,
      take: 4,
      probe: true,
      rowsAtMost: null,
    });
  });

  test('LIMIT ALL is no limit', () => {
    expect(page('SELECT * FROM t LIMIT ALL', 1, 10).text).toBe('SELECT * FROM t LIMIT 11');
    expect(page('SELECT * FROM t LIMIT ALL OFFSET 3', 1, 10).text).toBe('SELECT * FROM t LIMIT 11 OFFSET 3');
  });

  test('OFFSET m alone, with or without ROWS', () => {
    expect(page('SELECT * FROM t OFFSET 95', 1, 10)).toEqual(rewritten('SELECT * FROM t LIMIT 11 OFFSET 95', 10, true));
    expect(page('SELECT * FROM t OFFSET 95 ROWS', 2, 10).text).toBe('SELECT * FROM t LIMIT 11 OFFSET 105');
    expect(page('SELECT * FROM t OFFSET 1 ROW', 1, 10).text).toBe('SELECT * FROM t LIMIT 11 OFFSET 1');
  });

  test('[OFFSET m ROWS] FETCH FIRST|NEXT n ROW|ROWS ONLY', () => {
    expect(page('SELECT * FROM t OFFSET 90 ROWS FETCH NEXT 5 ROWS ONLY', 1, 2)).toEqual(
      rewritten('SELECT * FROM t LIMIT 3 OFFSET 90', 2, true),
    );
    expect(page('SELECT * FROM t FETCH FIRST 3 ROWS ONLY', 2, 2).text).toBe('SELECT * FROM t LIMIT 1 OFFSET 2');
    expect(page('SELECT * FROM t FETCH FIRST ROW ONLY', 1, 10)).toEqual(
      rewritten('SELECT * FROM t LIMIT 1', 1, false),
    );
    expect(page('SELECT * FROM t FETCH NEXT 1 ROW ONLY OFFSET 4 ROWS', 1, 10).text).toBe(
      'SELECT * FROM t LIMIT 1 OFFSET 4',
    );
  });

  test('keywords are case-insensitive and the clause may span lines and comments', () => {
    expect(page('select * from t\n  limit /* rows */ 25\n  offset 5', 1, 10).text).toBe(
      'select * from t\n  LIMIT 11 OFFSET 5',
    );
  });

  test('trailing ;, whitespace and comments after the clause are kept after it', () => {
    expect(page('SELECT * FROM t LIMIT 25 ; -- done\n', 3, 10).text).toBe('SELECT * FROM t LIMIT 5 OFFSET 20 ; -- done\n');
    expect(page('SELECT * FROM t -- note', 1, 10).text).toBe('SELECT * FROM t LIMIT 11 -- note');
    expect(page('SELECT * FROM t /* a */;', 1, 10).text).toBe('SELECT * FROM t LIMIT 11 /* a */;');
  });

  test('WITH, VALUES, compound and parenthesised selects are windowed', () => {
    expect(page('WITH a AS (SELECT 1 LIMIT 1) SELECT * FROM a LIMIT 2', 1, 10).text).toBe(
      'WITH a AS (SELECT 1 LIMIT 1) SELECT * FROM a LIMIT 2',
    );
    expect(page('VALUES (1), (2)', 1, 1).text).toBe('VALUES (1), (2) LIMIT 2');
    expect(page('SELECT 1 UNION ALL SELECT 2 LIMIT 1', 1, 10).text).toBe('SELECT 1 UNION ALL SELECT 2 LIMIT 1');
    expect(page('(SELECT * FROM t LIMIT 5)', 1, 10).text).toBe('(SELECT * FROM t LIMIT 5) LIMIT 11');
  });
});

describe('LIMIT that is not the statement’s window', () => {
  test('in a subquery', () => {
    const sql = 'SELECT * FROM (SELECT * FROM t LIMIT 5) s WHERE a IN (SELECT a FROM u OFFSET 2)';
    expect(page(sql, 1, 10).text).toBe(`${sql} LIMIT 11`);
  });

  test('in a string, a quoted identifier or a comment', () => {
    const sql = `SELECT 'LIMIT 3', "limit" FROM t /* LIMIT 3 */`;
    expect(page(sql, 1, 10).text).toBe(`SELECT 'LIMIT 3', "limit" FROM t LIMIT 11 /* LIMIT 3 */`);
    expect(page('SELECT 1 -- LIMIT 3', 1, 10).text).toBe('SELECT 1 LIMIT 11 -- LIMIT 3');
  });
});

describe('bound window numbers', () => {
  const sql = 'SELECT * FROM t LIMIT :n OFFSET :o';

  test.each([
    ['a number', 25, 5],
    ['a bigint', 25n, 5n],
    ['a string of digits', '25', '5'],
  ])('accepts %s', (_, n, o) => {
    for (const dialect of ['postgres', 'mysql', 'duckdb', 'sqlite'] as const) {
      expect(page(sql, 2, 10, dialect, { n, o })).toEqual(rewritten('SELECT * FROM t LIMIT 11 OFFSET 15', 10, true, dialect));
    }
  });

  test.each([-1, 1.5, Number.NaN, '10a', '', ' 5', '-1', '1e3', null, true, {}, -1n])('refuses %s', (bad) => {
    for (const paging of [{ page: 1, pageSize: 10 }, null]) {
      let error: unknown;
      try {
        plan(sql, 'postgres', { n: bad, o: 0 }, paging);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(SluiceError);
      expect((error as SluiceError).code).toBe('invalid_request');
      expect((error as SluiceError).message).toContain(':n');
    }
  });

  test('a window marker also used elsewhere keeps its placeholder there', () => {
    const text = 'SELECT * FROM t WHERE a < :n AND b = :b LIMIT :n';
    expect(page(text, 1, 2, 'postgres', { n: 5, b: 'x' })).toEqual({
      text: 'SELECT * FROM t WHERE a < $1 AND b = $2 LIMIT 3',
      values: [5, 'x'],
      skip: 0,
      take: 2,
      probe: true,
      rowsAtMost: 3,
      inlined: "SELECT * FROM t WHERE a <  '5'  AND b =  'x'  LIMIT 3",
    });
    expect(page(text, 1, 2, 'mysql', { n: 5, b: 'x' }).values).toEqual([5, 'x']);
  });

  test('without paging, window markers are bound like any other', () => {
    expect(plan(sql, 'postgres', { n: '25', o: 5 }, null)).toEqual({
      text: 'SELECT * FROM t LIMIT $1 OFFSET $2',
      values: ['25', 5],
      skip: 0,
      take: null,
      probe: false,
      rowsAtMost: null,
    });
    expect(plan(sql, 'sqlite', { n: 25, o: 5 }, null).text).toBe('SELECT * FROM t LIMIT ? OFFSET ?');
  });

  test('a missing window marker is reported as missing', () => {
    expect(() => page(sql, 1, 10, 'postgres', { n: 1 })).toThrow(/:o/);
  });
});

describe('statements the engine pages client-side', () => {
  const fallback = (text: string, skip: number, take: number) => ({ text, values: [], skip, take, probe: true, rowsAtMost: null });

  test.each([
    ['FOR UPDATE after the window', 'SELECT * FROM t LIMIT 25 FOR UPDATE'],
    ['FOR UPDATE with no window', 'SELECT * FROM t FOR UPDATE'],
    ['FOR SHARE before the window', 'SELECT * FROM t FOR SHARE LIMIT 5'],
    ['MySQL LOCK IN SHARE MODE', 'SELECT * FROM t LOCK IN SHARE MODE'],
    ['an expression', 'SELECT * FROM t LIMIT 10 + 5'],
    ['a subquery bound', 'SELECT * FROM t LIMIT (SELECT 3)'],
    ['a negative literal', 'SELECT * FROM t LIMIT -1'],
    ['a decimal', 'SELECT * FROM t LIMIT 2.5'],
    ['a positional parameter', 'SELECT * FROM t LIMIT $1'],
    ['WITH TIES', 'SELECT * FROM t ORDER BY a FETCH FIRST 5 ROWS WITH TIES'],
    ['two limits', 'SELECT * FROM t LIMIT 5 LIMIT 6'],
    ['a limit past the safe integers', 'SELECT * FROM t LIMIT 99999999999999999999'],
    ['SHOW', 'SHOW TABLES'],
    ['EXPLAIN', 'EXPLAIN SELECT * FROM t LIMIT 5'],
    ['a write with RETURNING', 'INSERT INTO t SELECT * FROM u LIMIT 5 RETURNING *'],
    ['a writable CTE', 'WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d LIMIT 5'],
    ['WITH feeding a write', 'WITH a AS (SELECT 1) DELETE FROM t RETURNING *'],
    ['SELECT INTO', 'SELECT * INTO u FROM t LIMIT 5'],
  ])('%s', (_, sql) => {
    expect(page(sql, 3, 10, 'postgres')).toEqual(fallback(sql, 20, 10));
  });

  test('SQLite takes no LIMIT after VALUES, so VALUES is paged client-side there', () => {
    expect(page('VALUES (1), (2)', 2, 1, 'sqlite')).toEqual(fallback('VALUES (1), (2)', 1, 1));
    const compound = 'SELECT 1 UNION ALL VALUES (2)';
    expect(page(compound, 1, 1, 'sqlite')).toEqual(fallback(compound, 0, 1));
    expect(page('SELECT * FROM (VALUES (1)) LIMIT 1', 1, 1, 'sqlite').text).toBe('SELECT * FROM (VALUES (1)) LIMIT 1');
  });

  test('markers are still bound', () => {
    expect(page('SELECT * FROM t WHERE a = :a FOR UPDATE', 1, 5, 'mysql', { a: 1 })).toEqual({
      text: 'SELECT * FROM t WHERE a = ? FOR UPDATE',
      values: [1],
      skip: 0,
      take: 5,
      probe: true,
      rowsAtMost: null,
    });
  });

  test('a bound window value too large to add to falls back', () => {
    const sql = 'SELECT * FROM t OFFSET :o';
    expect(page(sql, 2, 10, 'postgres', { o: 2n ** 60n })).toMatchObject({ skip: 10, take: 10, probe: true });
  });
});

describe('without paging (streaming)', () => {
  test('the text is unchanged apart from binding', () => {
    for (const sql of ['SELECT * FROM t LIMIT 25', 'SELECT * FROM t', 'SHOW TABLES', 'SELECT * FROM t LIMIT 5, 10']) {
      expect(plan(sql, 'mysql', {}, null)).toEqual({ text: sql, values: [], skip: 0, take: null, probe: false, rowsAtMost: null });
    }
  });
});

describe("the statement's own limit (a dry run's bound)", () => {
  test('is its trailing LIMIT or FETCH FIRST, bound values read; null without one or inside a subquery', () => {
    expect(ownLimit('select * from t limit 10', 'postgres', {})).toBe(10);
    expect(ownLimit('select * from t limit 5, 20', 'mysql', {})).toBe(20);
    expect(ownLimit('select * from t offset 3 rows fetch first 7 rows only', 'postgres', {})).toBe(7);
    expect(ownLimit('select * from t limit :n', 'duckdb', { n: 4 })).toBe(4);
    expect(ownLimit('select * from t', 'postgres', {})).toBeNull();
    expect(ownLimit('select * from (select * from t limit 3) s', 'postgres', {})).toBeNull();
  });
});
