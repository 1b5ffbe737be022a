import { describe, expect, test } from 'vitest';
import { SluiceError } from '../../../origin/errors.ts';
import { plan } from '../../../origin/sql/index.ts';

const bind = (sql: string, dialect: 'postgres' | 'mysql' | 'duckdb' | 'sqlite', params: Record<string, unknown>) => {
  const { text, values } = plan(sql, dialect, params, null);
  return { text, values };
};

describe('binding', () => {
  const sql = 'select * from t where a = :a and b = :b and c = :a';
  const params = { a: 1, b: 'x' };

  test('postgres and duckdb number placeholders; a repeated name reuses its index', () => {
    for (const dialect of ['postgres', 'duckdb'] as const) {
      expect(bind(sql, dialect, params)).toEqual({
        text: 'select * from t where a = $1 and b = $2 and c = $1',
        values: [1, 'x'],
      });
    }
  });

  test('mysql and sqlite take one ? and one value per occurrence', () => {
    for (const dialect of ['mysql', 'sqlite'] as const) {
      expect(bind(sql, dialect, params)).toEqual({
        text: 'select * from t where a = ? and b = ? and c = ?',
        values: [1, 'x', 1],
      });
    }
  });

  test('values pass through as given, null included', () => {
    const date = new Date(0);
    expect(bind('select :a, :b, :c, :d', 'postgres', { a: null, b: 10n, c: date, d: [1, 2] }).values).toEqual([
      null,
      10n,
      date,
      [1, 2],
    ]);
  });

  test('casts, slices, strings, comments and identifiers are left alone', () => {
    const text = "select x::int, :v::text, a[1:n], ':s', \":q\", $$:d$$ /* :c */ -- :l\n";
    expect(bind(text, 'postgres', { v: 1 })).toEqual({
      text: "select x::int, $1::text, a[1:n], ':s', \":q\", $$:d$$ /* :c */ -- :l\n",
      values: [1],
    });
  });

  test('MySQL # comments and backslash strings hide markers', () => {
    expect(bind("select :a, 'x\\' :b' # :c", 'mysql', { a: 1 })).toEqual({
      text: "select ?, 'x\\' :b' # :c",
      values: [1],
    });
  });

  test('extra params are ignored; text without markers is unchanged', () => {
    expect(bind('select 1', 'sqlite', { unused: 1 })).toEqual({ text: 'select 1', values: [] });
  });
});

describe('missing values', () => {
  const thrown = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      return error as SluiceError;
    }
    throw new Error('expected a throw');
  };

  test('every missing marker is named', () => {
    const error = thrown(() => plan('select :a, :b, :c, :a', 'postgres', { b: 1 }, null));
    expect(error).toBeInstanceOf(SluiceError);
    expect(error.code).toBe('invalid_request');
    expect(error.status).toBe(400);
    expect(error.message).toContain(':a');
    expect(error.message).toContain(':c');
    expect(error.message).not.toContain(':b');
    expect(error.extras).toEqual({ missing: ['a', 'c'] });
  });

  test('undefined is missing, null is a value', () => {
    expect(thrown(() => plan('select :a', 'mysql', { a: undefined }, null)).extras).toEqual({ missing: ['a'] });
    expect(plan('select :a', 'mysql', { a: null }, null).values).toEqual([null]);
  });

  test('inherited properties are not values', () => {
    expect(thrown(() => plan('select :toString', 'sqlite', {}, null)).extras).toEqual({ missing: ['toString'] });
  });
});

describe('values written in (PostgreSQL, a read answered whole)', () => {
  const inline = (sql: string, params: Record<string, unknown>, dialect: 'postgres' | 'duckdb' = 'postgres') =>
    plan(sql, dialect, params, { page: 1, pageSize: 10 }).inlined;

  test('text and numbers as quoted literals of unknown type, quotes doubled; null as NULL; a repeated name written each time', () => {
    expect(inline('select * from t where a = :a and b = :b and c = :a and d is not distinct from :n', { a: 1.5, b: "it's", n: null })).toBe(
      "select * from t where a =  '1.5'  and b =  'it''s'  and c =  '1.5'  and d is not distinct from  NULL  LIMIT 11",
    );
  });

  test('a backslash stays a backslash (the driver sends such text only with standard_conforming_strings on)', () => {
    expect(inline('select :a', { a: "\\'; select 1; --" })).toBe("select  '\\''; select 1; --'  LIMIT 11");
  });

  test('no word can make the literal an escape string or a typed literal: `e:a` is no marker, and a space parts a literal from what is before it', () => {
    expect(inline('select e:a, 1||:a', { a: "x\\'" })).toBe("select e:a, 1|| 'x\\'''  LIMIT 11");
  });

  test('a marker inside a string, a quoted name or a comment is no marker, and is left as written', () => {
    expect(inline(`select ':a', ":a" /* :a */ , :a`, { a: 'v' })).toBe(`select ':a', ":a" /* :a */ ,  'v'  LIMIT 11`);
  });

  test('nothing is written in when one value cannot be: a NUL, a boolean, a bigint, a date, an array, an object', () => {
    for (const a of ['a\0b', true, 5n, new Date(0), [1], { k: 1 }]) expect(inline('select :a, :b', { a, b: 'x' })).toBeUndefined();
  });

  test('only for PostgreSQL, and only for a page folded into the statement', () => {
    expect(inline('select :a', { a: 'x' }, 'duckdb')).toBeUndefined();
    expect(plan('select :a', 'postgres', { a: 'x' }, null).inlined).toBeUndefined();
  });
});
