import { describe, expect, it } from 'vitest';
import { selectColumns } from '../../../origin/sql/select-columns.ts';

/** The output columns a saved query's SELECT names, for describing them in /catalog and /openapi.json. */

const names = (sql: string, dialect: Parameters<typeof selectColumns>[1] = 'postgres') => selectColumns(sql, dialect)?.map((c) => [c.name, c.source?.qualifier ?? null, c.source?.column ?? null]);

describe('selectColumns', () => {
  it('names plain references, qualified ones and aliases, in order', () => {
    expect(names('select id, f.title, d.name as director, f.price p from films f join directors d on d.id = f.director_id')).toEqual([
      ['id', null, 'id'],
      ['title', 'f', 'title'],
      ['director', 'd', 'name'],
      ['p', 'f', 'price'],
    ]);
  });

  it('keeps an aliased expression without a source, and leaves out * and unnamed expressions', () => {
    expect(names("select *, count(*) as rentals, sum(amount) revenue, amount + 1, strftime(date_trunc('month', rented_at), '%Y-%m') as month from rentals")).toEqual([
      ['rentals', null, null],
      ['revenue', null, null],
      ['month', null, null],
    ]);
    expect(names('select case when a then 1 else 2 end from t')).toEqual([]);
  });

  it('reads identifiers as the engine does: quotes stripped, unquoted folded except on MySQL', () => {
    expect(names('select "Title", Views from films')).toEqual([
      ['Title', null, 'Title'],
      ['views', null, 'views'],
    ]);
    expect(names('select `Title`, Views from films', 'mysql')).toEqual([
      ['Title', null, 'Title'],
      ['Views', null, 'Views'],
    ]);
  });

  it('gives up on what is not one plain SELECT', () => {
    expect(selectColumns('with x as (select 1) select * from x', 'postgres')).toBeNull();
    expect(selectColumns('select 1; select 2', 'postgres')).toBeNull();
    expect(selectColumns('update t set a = 1', 'postgres')).toBeNull();
  });
});

describe('decoded names', () => {
  it('a U& alias is named as PostgreSQL names it', () => {
    expect(names('SELECT 1 AS U&"\\0061ge"')).toEqual([['age', null, null]]);
  });
});
