import { describe, expect, test } from 'vitest';
import type { Dialect } from '../../../origin/drivers/types.ts';
import { formatSql } from '../../../origin/sql/format.ts';
import { tokenize } from '../../../origin/sql/tokenizer.ts';
import { GUARD_CORPUS } from './corpus.ts';

/** Tokens as the database reads them: words compared without case, everything else exactly. */
const reading = (sql: string, dialect: Dialect) =>
  tokenize(sql, dialect).map((t) => `${t.kind}:${t.kind === 'word' ? t.word : t.text}`);

describe('layout', () => {
  test('a line per major clause, keywords upper-cased', () => {
    const sql =
      'select f.title, d.name from films f join directors d on f.director_id = d.director_id ' +
      'left outer join rentals r using (film_id) where f.rating > 3 group by 1, 2 having count(*) > 1 order by 2 desc limit 10';
    expect(formatSql(sql, 'duckdb')).toBe(
      [
        'SELECT f.title, d.name',
        'FROM films f',
        'JOIN directors d ON f.director_id = d.director_id',
        'LEFT OUTER JOIN rentals r USING (film_id)',
        'WHERE f.rating > 3',
        'GROUP BY 1, 2',
        'HAVING count(*) > 1',
        'ORDER BY 2 DESC',
        'LIMIT 10',
      ].join('\n'),
    );
  });

  test('CTEs and subqueries are indented on their own lines; UNION sits between its branches', () => {
    const sql = 'with top as (select film_id from rentals group by film_id) select * from top union all select * from (select 1 from x) z';
    expect(formatSql(sql, 'postgres')).toBe(
      [
        'WITH top AS (',
        '  SELECT film_id',
        '  FROM rentals',
        '  GROUP BY film_id',
        ')',
        'SELECT *',
        'FROM top',
        'UNION ALL',
        'SELECT *',
        'FROM (',
        '  SELECT 1',
        '  FROM x',
        ') z',
      ].join('\n'),
    );
  });

  test('clauses inside function calls and window specs stay inline', () => {
    expect(formatSql('select extract(year from d), rank() over (partition by a order by b) from t where x is distinct from y', 'postgres')).toBe(
      ['SELECT extract(year FROM d), rank() OVER (PARTITION BY a ORDER BY b)', 'FROM t', 'WHERE x IS DISTINCT FROM y'].join('\n'),
    );
  });

  test('strings, quoted names and comments keep their text and case', () => {
    const sql = "select 'select from where' as \"from\", $$ order by $$ /* where */ from films -- group by\nwhere a = :a";
    expect(formatSql(sql, 'postgres')).toBe(
      ["SELECT 'select from where' AS \"from\", $$ order by $$ /* where */", 'FROM films -- group by', 'WHERE a = :a'].join('\n'),
    );
  });

  test('a line comment is always followed by a line break', () => {
    expect(formatSql('select 1 -- one\n, 2', 'postgres')).toBe('SELECT 1 -- one\n, 2');
    expect(formatSql('select 1 # one\n, 2', 'mysql')).toBe('SELECT 1 # one\n, 2');
  });

  test('qualified names are not upper-cased; MySQL keeps case outside its reserved words', () => {
    expect(formatSql('select t.order, t.end from t', 'postgres')).toBe('SELECT t.order, t.end\nFROM t');
    expect(formatSql('select x from end_table where x = 1 and end = 2', 'mysql')).toBe('SELECT x\nFROM end_table\nWHERE x = 1 AND end = 2');
  });

  test('statements each start a line', () => {
    expect(formatSql('select 1; select 2', 'sqlite')).toBe('SELECT 1;\nSELECT 2');
  });
});

describe('meaning is kept', () => {
  test('every corpus statement reads the same after formatting', () => {
    for (const { sql, dialects } of GUARD_CORPUS) {
      for (const dialect of dialects) {
        const formatted = formatSql(sql, dialect);
        expect(reading(formatted, dialect), `${dialect}: ${sql}\n->\n${formatted}`).toEqual(reading(sql, dialect));
      }
    }
  });

  test('tokens written together stay together', () => {
    // `a.b`, `x::int`, `E'..'`, `$1`, `1e3` and `-1` would change meaning if spaced.
    const sql = "select a.b, x::int, E'\\n', -1, 1e3 from t";
    expect(formatSql(sql, 'postgres')).toBe("SELECT a.b, x::int, E'\\n', -1, 1e3\nFROM t");
  });
});
