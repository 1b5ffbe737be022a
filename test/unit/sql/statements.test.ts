import { describe, expect, test } from 'vitest';
import { inspect } from '../../../origin/sql/index.ts';

const count = (sql: string, dialect: 'postgres' | 'mysql' | 'duckdb' | 'sqlite' = 'postgres') =>
  inspect(sql, dialect).statementCount;

describe('statement count', () => {
  test('top-level ; splits', () => {
    expect(count('select 1; select 2')).toBe(2);
  });

  test('a ; in a string is not a split', () => {
    expect(count("select ';'")).toBe(1);
  });

  test('trailing and empty ; are ignored', () => {
    expect(count('select 1;')).toBe(1);
    expect(count('select 1;;')).toBe(1);
    expect(count(';; select 1 ;; ;')).toBe(1);
    expect(count(' ; ')).toBe(0);
    expect(count('')).toBe(0);
  });

  test('comments alone are no statement', () => {
    expect(count('-- just a note\n/* and this */')).toBe(0);
    expect(count('select 1; -- done')).toBe(1);
  });

  test('; inside comments, dollar quotes and quoted identifiers does not split', () => {
    expect(count('select 1 /* ; */ -- ;\n')).toBe(1);
    expect(count('select $$;$$, $t$;$t$')).toBe(1);
    expect(count('select ";" from t')).toBe(1);
    expect(count('select `;` from t', 'mysql')).toBe(1);
    expect(count('select [;] from t', 'sqlite')).toBe(1);
  });

  test('dialect decides what is a string', () => {
    expect(count("select 'a\\'; select 2; '", 'mysql')).toBe(1);
    expect(count("select 'a\\'; select 2; '", 'postgres')).toBe(3);
    expect(count('select 1 # ; select 2', 'mysql')).toBe(1);
    expect(count('select 1 # ; select 2', 'postgres')).toBe(2);
    expect(count('select $$;$$', 'sqlite')).toBe(2);
  });
});
