import { describe, expect, test } from 'vitest';
import { assertTablesAllowed } from '../../../origin/access/allowed-tables.ts';
import type { Dialect } from '../../../origin/drivers/types.ts';
import { analyzeTables, tablesOrNull } from '../../../origin/sql/tables.ts';

const ALL: Dialect[] = ['postgres', 'mysql', 'duckdb', 'sqlite'];

function tables(sql: string, dialect: Dialect = 'postgres'): string[] {
  const result = analyzeTables(sql, dialect);
  expect(result.error, sql).toBeNull();
  return result.tables;
}
const joins = (sql: string, dialect: Dialect = 'postgres') => analyzeTables(sql, dialect).joins;
const errorOf = (sql: string, dialect: Dialect = 'postgres') => analyzeTables(sql, dialect).error;

describe('tables after FROM and JOIN', () => {
  test('a plain FROM, in every dialect', () => {
    for (const dialect of ALL) expect(tables('select title from films where film_id = :id', dialect)).toEqual(['films']);
  });

  test('every join kind, with its type, resolved aliases and ON text', () => {
    const sql =
      'select * from films f ' +
      'join directors d on f.director_id = d.director_id ' +
      'inner join film_genres fg on fg.film_id = f.film_id ' +
      'left outer join genres g on g.genre_id = fg.genre_id ' +
      'right join rentals r on r.film_id = f.film_id ' +
      'full join customers c on c.customer_id = r.customer_id ' +
      'cross join extra';
    expect(tables(sql)).toEqual(['films', 'directors', 'film_genres', 'genres', 'rentals', 'customers', 'extra']);
    expect(joins(sql)).toEqual([
      { left: 'films', right: 'directors', type: 'INNER', on: 'f.director_id = d.director_id' },
      { left: 'films', right: 'film_genres', type: 'INNER', on: 'fg.film_id = f.film_id' },
      { left: 'film_genres', right: 'genres', type: 'LEFT', on: 'g.genre_id = fg.genre_id' },
      { left: 'films', right: 'rentals', type: 'RIGHT', on: 'r.film_id = f.film_id' },
      { left: 'rentals', right: 'customers', type: 'FULL', on: 'c.customer_id = r.customer_id' },
      { left: 'customers', right: 'extra', type: 'CROSS', on: null },
    ]);
  });

  test('NATURAL, USING, comma joins and joins without ON', () => {
    expect(joins('select * from films natural join directors')).toEqual([
      { left: 'films', right: 'directors', type: 'NATURAL', on: null },
    ]);
    expect(joins('select * from films natural left join directors')[0].type).toBe('NATURAL LEFT');
    expect(joins('select * from films join rentals using (film_id)')).toEqual([
      { left: 'films', right: 'rentals', type: 'INNER', on: 'using (film_id)' },
    ]);
    expect(joins('select * from films f, directors d where f.director_id = d.director_id')).toEqual([
      { left: 'films', right: 'directors', type: 'CROSS', on: null },
    ]);
    expect(tables('select * from a, b, c')).toEqual(['a', 'b', 'c']);
    expect(joins('select * from a join b join c on c.x = b.x on b.y = a.y', 'mysql').map((j) => j.type)).toEqual(['INNER', 'INNER']);
  });

  test('dialect-specific joins: STRAIGHT_JOIN, SEMI, ANTI, ASOF, POSITIONAL, LATERAL', () => {
    expect(joins('select * from a straight_join b on a.id = b.id', 'mysql')[0]).toMatchObject({ type: 'STRAIGHT', left: 'a', right: 'b' });
    expect(joins('select * from a semi join b on a.id = b.id', 'duckdb')[0].type).toBe('SEMI');
    expect(joins('select * from a anti join b on a.id = b.id', 'duckdb')[0].type).toBe('ANTI');
    expect(joins('select * from t asof join p on t.k = p.k and t.ts >= p.ts', 'duckdb')[0]).toMatchObject({ type: 'ASOF', on: 't.k = p.k and t.ts >= p.ts' });
    expect(joins('select * from a positional join b', 'duckdb')[0].type).toBe('POSITIONAL');
    const lateral = 'select * from films f cross join lateral (select * from rentals r where r.film_id = f.film_id limit 1) last';
    expect(tables(lateral)).toEqual(['films', 'rentals']);
    expect(joins(lateral)).toEqual([{ left: 'films', right: 'subquery', type: 'CROSS', on: null }]);
  });

  test('the left side of a join is the other table its ON names, else the item before it', () => {
    const sql = 'select * from films f join directors d on d.director_id = f.director_id join rentals r on r.film_id = f.film_id';
    expect(joins(sql).map((j) => [j.left, j.right])).toEqual([
      ['films', 'directors'],
      ['films', 'rentals'],
    ]);
    // A self-join: both sides are the same table under two aliases.
    expect(joins('select * from films a join films b on a.director_id = b.director_id')[0]).toMatchObject({ left: 'films', right: 'films' });
  });

  test('a parenthesised join is read as part of the FROM list', () => {
    const sql = 'select * from (a join b on a.x = b.x) join c on c.y = b.y';
    expect(tables(sql)).toEqual(['a', 'b', 'c']);
    expect(joins(sql).map((j) => [j.left, j.right])).toEqual([
      ['a', 'b'],
      ['b', 'c'],
    ]);
    expect(tables('select * from a left join (b join c on b.id = c.id) on a.id = b.id', 'mysql')).toEqual(['a', 'b', 'c']);
  });

  test('an ON condition with CASE, a subquery and a function named LEFT', () => {
    const sql =
      "select * from a join b on case when a.k = b.k then left(a.s, 2) = 'x' else a.id in (select id from c) end " +
      'left join d on d.id = a.id';
    expect(tables(sql)).toEqual(['a', 'b', 'c', 'd']);
    expect(joins(sql).map((j) => j.type)).toEqual(['INNER', 'LEFT']);
  });
});

describe('subqueries, CTEs and set operations', () => {
  test('tables at any depth: derived tables, WHERE, SELECT list, EXISTS, IN', () => {
    const sql =
      'select (select count(*) from rentals r where r.film_id = f.film_id) as n from films f ' +
      'where exists (select 1 from film_genres fg where fg.film_id = f.film_id and fg.genre_id in (select genre_id from genres)) ' +
      'and f.director_id = any (select director_id from (select * from directors) d)';
    expect(tables(sql)).toEqual(['rentals', 'films', 'film_genres', 'genres', 'directors']);
  });

  test('CTE names are not tables; the tables their bodies read are', () => {
    const sql = 'with top as (select film_id from rentals), named as (select * from top join films using (film_id)) select * from named';
    expect(tables(sql)).toEqual(['rentals', 'films']);
    expect(joins(sql)).toEqual([{ left: 'cte:top', right: 'films', type: 'INNER', on: 'using (film_id)' }]);
  });

  test('a recursive CTE reads itself; a plain one named like a table reads the table', () => {
    expect(tables('with recursive r(n) as (select 1 union all select n + 1 from r where n < 3) select * from r')).toEqual([]);
    expect(tables('with films as (select * from films) select * from films')).toEqual(['films']);
    // A CTE only sees the ones before it.
    expect(tables('with a as (select * from b), b as (select 1) select * from a')).toEqual(['b']);
    // CTEs in a subquery are scoped to it.
    expect(tables('select * from (with x as (select * from films) select * from x) s, x')).toEqual(['films', 'x']);
    // A qualified name is never a CTE.
    expect(tables('with films as (select 1) select * from main.films, films')).toEqual(['main.films']);
  });

  test('CTE column lists, MATERIALIZED and duckdb USING KEY', () => {
    expect(tables('with t (a, b) as materialized (select 1, 2 from x) select * from t')).toEqual(['x']);
    expect(tables('with t as not materialized (select * from x) select * from t')).toEqual(['x']);
    expect(tables('with recursive t(a) using key (a) as (select 1 from y) select * from t', 'duckdb')).toEqual(['y']);
  });

  test('UNION, INTERSECT and EXCEPT branches', () => {
    expect(tables('select id from a union all select id from b intersect (select id from c) except select id from d')).toEqual([
      'a', 'b', 'c', 'd',
    ]);
  });

  test('the same table read twice is listed once', () => {
    expect(tables('select * from films where film_id in (select film_id from films)')).toEqual(['films']);
  });
});

describe('names', () => {
  test('quoted and schema-qualified names, per dialect', () => {
    expect(tables('select * from "Main"."Films" f, public.directors, Genres', 'postgres')).toEqual(['Main.Films', 'public.directors', 'genres']);
    expect(tables('select * from `Db`.`Films`, Other', 'mysql')).toEqual(['Db.Films', 'Other']);
    expect(tables('select * from "Main"."Films", Other', 'duckdb')).toEqual(['main.films', 'other']);
    expect(tables('select * from [My Table], `x`, "Y"', 'sqlite')).toEqual(['my table', 'x', 'y']);
    // Doubled quotes are undone; a part holding a quote is shown quoted again.
    expect(tables('select * from "we""ird"')).toEqual(['"we""ird"']);
    expect(tables('select * from `a``b`', 'mysql')).toEqual(['a`b']);
  });

  test('a dot inside a quoted part keeps its quotes', () => {
    expect(tables('select * from "a.b".c')).toEqual(['"a.b".c']);
  });

  test('table functions and file scans', () => {
    expect(tables("select * from read_csv('films.csv') t join range(3) r on true", 'duckdb')).toEqual(['function:read_csv', 'function:range']);
    expect(tables('select * from generate_series(1, 3) with ordinality as g(n, i)')).toEqual(['function:generate_series']);
    expect(tables('select * from pg_catalog.generate_series(1, (select max(id) from films))')).toEqual([
      'function:pg_catalog.generate_series',
      'films',
    ]);
    expect(tables("select * from 'films.parquet'", 'duckdb')).toEqual(['file:films.parquet']);
    // SQLite reads a string where a name belongs as the name.
    expect(tables("select * from 'films'", 'sqlite')).toEqual(['films']);
  });

  test('FROM DUAL names no table in MySQL', () => {
    expect(tables('select 1 from dual', 'mysql')).toEqual([]);
  });

  test('FROM inside strings, comments and function calls names nothing', () => {
    const sql =
      "select 'from secret', extract(year from release_date), substring(title from 2 for 3), trim(both ' ' from title) " +
      '/* from hidden */ from films -- from other\n where a is distinct from b and c is not distinct from d';
    expect(tables(sql)).toEqual(['films']);
    expect(tables('select $$ from secret $$ from films', 'duckdb')).toEqual(['films']);
    expect(tables('select "from" from films')).toEqual(['films']);
  });

  test('modifiers after a table: TABLESAMPLE, ONLY, index hints, INDEXED BY', () => {
    expect(tables('select * from only films f tablesample bernoulli (10) repeatable (1) where true')).toEqual(['films']);
    expect(tables('select * from films tablesample 10%', 'duckdb')).toEqual(['films']);
    expect(tables('select * from films f force index (primary) join d use index for join (i) on f.a = d.a', 'mysql')).toEqual(['films', 'd']);
    expect(tables('select * from films indexed by films_title where 1', 'sqlite')).toEqual(['films']);
    expect(tables('select * from films not indexed', 'sqlite')).toEqual(['films']);
  });
});

describe('other statements', () => {
  test('write targets: INSERT, UPDATE, DELETE, MERGE', () => {
    expect(tables('insert into archive (id) select film_id from films')).toEqual(['archive', 'films']);
    expect(tables('update films set title = d.name from directors d where d.director_id = films.director_id')).toEqual(['films', 'directors']);
    expect(tables('update films f join directors d on f.director_id = d.director_id set f.x = 1', 'mysql')).toEqual(['films', 'directors']);
    expect(tables('delete from films using directors where true')).toEqual(['films', 'directors']);
    expect(tables('merge into films f using staging s on f.id = s.id when matched then update set title = s.title')).toEqual(['films', 'staging']);
    expect(tables('insert into t values (1) on conflict (id) do update set x = excluded.x')).toEqual(['t']);
  });

  test('duckdb FROM-first and a postgres TABLE statement', () => {
    expect(tables('from films select title', 'duckdb')).toEqual(['films']);
    expect(tables('table films')).toEqual(['films']);
  });

  test('statements that name no table the analysis should report', () => {
    expect(tables('show tables from db', 'mysql')).toEqual([]);
    expect(tables('select 1')).toEqual([]);
    expect(tables('values (1), (2)')).toEqual([]);
  });
});

describe('analysis errors', () => {
  test('unbalanced parentheses, empty text, a parameter or placeholder as the table', () => {
    expect(errorOf('select * from (select 1')).toMatch(/unbalanced/);
    expect(errorOf('select 1)')).toMatch(/unbalanced/);
    expect(errorOf('  -- nothing')).toMatch(/no SQL statement/);
    expect(errorOf('select * from :tbl')).toMatch(/parameter/);
    expect(errorOf('select * from {tbl}')).toMatch(/placeholder/);
  });

  test('a FROM clause not understood is an error, not a silently shorter list', () => {
    expect(errorOf('select * from films x y, secret')).toMatch(/could not follow the FROM clause/);
    expect(errorOf('select * from')).toMatch(/names no table/);
    expect(errorOf('with x as select 1 select 2')).toMatch(/WITH/);
    // Table operators the analysis does not follow: what comes after them could name more tables.
    expect(errorOf("select * from films pivot (count(*) for rating in ('G')) p, secret", 'duckdb')).toMatch(/could not follow/);
    expect(errorOf('select * from films for system_time all, secret', 'mysql')).toMatch(/SYSTEM_TIME/);
  });

  test('MySQL executable comments cannot be analysed', () => {
    expect(errorOf('select * from films /*!50000 join secret */', 'mysql')).toMatch(/executable comments/);
  });

  test('an error leaves tables and joins empty', () => {
    expect(analyzeTables('select * from a join b on (', 'postgres')).toEqual({ tables: [], joins: [], error: expect.any(String) });
  });
});

describe('tablesOrNull (fail closed)', () => {
  test('a plain read gives its tables', () => {
    expect(tablesOrNull('select * from films join directors using (director_id)', 'duckdb')).toEqual(['films', 'directors']);
    expect(tablesOrNull('with x as (select * from films) select * from x', 'postgres')).toEqual(['films']);
    expect(tablesOrNull('select 1', 'sqlite')).toEqual([]);
  });

  test('null when the analysis is not certain', () => {
    expect(tablesOrNull('select * from (select 1', 'postgres')).toBeNull();
    expect(tablesOrNull('select 1; select 2', 'postgres')).toBeNull();
    expect(tablesOrNull('insert into t select * from films', 'postgres')).toBeNull();
    expect(tablesOrNull('show tables', 'mysql')).toBeNull();
    expect(tablesOrNull('execute stmt', 'postgres')).toBeNull();
    expect(tablesOrNull('from films', 'duckdb')).toBeNull();
  });

  test('null for dynamic SQL and run-time table names', () => {
    expect(tablesOrNull("select * from query('select * from secret')", 'duckdb')).toBeNull();
    expect(tablesOrNull("select * from query_table('secret')", 'duckdb')).toBeNull();
    expect(tablesOrNull("select query_to_xml('select * from secret', true, true, '')", 'postgres')).toBeNull();
    expect(tablesOrNull('select * from films where id = {id}', 'postgres')).toBeNull();
  });

  test("null for MySQL text whose tables depend on the server's sql_mode", () => {
    // By default one string then films; with NO_BACKSLASH_ESCAPES it reads secret and comments films out.
    expect(analyzeTables("select 'a\\' from secret -- ' from films", 'mysql').tables).toEqual(['films']);
    expect(tablesOrNull("select 'a\\' from secret -- ' from films", 'mysql')).toBeNull();
    expect(tablesOrNull('select * from films', 'mysql')).toEqual(['films']);
  });
});

/** Issue 33 item 14: `TABLE t` is a read, checked against allowed_tables as `SELECT * FROM t` is. */
describe('TABLE t', () => {
  test('names its table, decoded as the engine reads it', () => {
    expect(tablesOrNull('TABLE secret', 'postgres')).toEqual(['secret']);
    expect(tablesOrNull('TABLE public."Secret"', 'postgres')).toEqual(['public.Secret']);
    expect(tablesOrNull('TABLE U&"s\\0065cret"', 'postgres')).toEqual(['secret']);
    expect(tablesOrNull('TABLE secret', 'duckdb')).toEqual(['secret']);
  });

  test('a forbidden table is refused under allowed_tables, an allowed one passes', () => {
    expect(() => assertTablesAllowed('TABLE secret', 'postgres', ['films'])).toThrow(/may not use table secret/);
    expect(() => assertTablesAllowed('TABLE films', 'postgres', ['films'])).not.toThrow();
    expect(() => assertTablesAllowed('select * from U&"s\\0065cret"', 'postgres', ['films'])).toThrow(/may not use table secret/);
  });
});
