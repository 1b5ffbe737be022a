import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Origin } from '../harness/origin.ts';
import { API, at, versionAt } from './queries-fixtures.ts';
import { expectError } from '../harness/expect-error.ts';
import { unique } from '../harness/unique.ts';
import { sharedOrigin } from '../harness/shared-origin.ts';

/** POST /api/v1/queries/validate and GET .../versions/{n}/flow over HTTP, on the bundled `examples` (DuckDB) connection. */

let origin: Origin;
beforeAll(async () => {
  origin = await sharedOrigin();
});
afterAll(async () => {
  await origin?.stop();
});

const JOIN_SQL =
  'select f.title, d.name from films f join directors d on d.id = f.director_id ' +
  'left join film_genres fg on fg.film_id = f.id where f.id = :id';

const validate = (body: unknown) => origin.call('POST', `${API}/validate`, body);
const flow = (name: string, version: number | string) => origin.call('GET', `${versionAt(name, version)}/flow`);

async function create(name: string, body: Record<string, unknown>) {
  const res = await origin.call('POST', API, { name, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

describe('POST /api/v1/queries/validate', () => {
  it('answers a valid definition with its parameters, tables and statement', async () => {
    const res = await validate({ sql: JOIN_SQL, parameters: { id: 'int' }, connection_name: 'examples' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      valid: true,
      errors: {},
      dialect: 'duckdb',
      parameters: { declared: ['id'], used: ['id'], undeclared: [] },
      tables: ['films', 'directors', 'film_genres'],
      tables_error: null,
      statement: { read: true, keyword: 'SELECT', refusal: null },
    });
  });

  it('lists every problem at once, still with 200', async () => {
    const res = await validate({
      name: ' bad/name',
      sql: 'select 1; select 2',
      parameters: { unused: 'int', odd: 'no-such-type' },
      connection_name: 'no_such_connection',
      cache_ttl: -1,
      tags: 'not-a-list',
      collection: 'Upper',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.valid).toBe(false);
    expect(Object.keys(res.body.errors).sort()).toEqual(
      ['cache_ttl', 'collection', 'connection_name', 'name', 'parameters.odd', 'parameters.unused', 'sql', 'tags'].sort(),
    );
    for (const message of Object.values(res.body.errors)) expect(typeof message).toBe('string');
    // An unknown connection: the SQL is read as postgres.
    expect(res.body.dialect).toBe('postgres');
  });

  it('gives the same errors map a refused create gives', async () => {
    const body = { name: unique('v_same'), sql: 'select * from films', parameters: { id: 'int' }, cache_ttl: 'soon' };
    const refused = await origin.call('POST', API, body);
    expectError(refused, 400, 'invalid_request');
    const res = await validate(body);
    expect(res.body.errors).toEqual(refused.body.errors);
  });

  it('reports markers used but not declared, and legacy {name} placeholders as used', async () => {
    const res = await validate({
      sql: "select * from films where id = :id and title = :title and rating = '{rating}' and views > :id",
      parameters: { id: 'int', rating: 'str' },
      connection_name: 'examples',
    });
    expect(res.body.valid, JSON.stringify(res.body)).toBe(true);
    expect(res.body.parameters).toEqual({ declared: ['id', 'rating'], used: ['id', 'title', 'rating'], undeclared: ['title'] });
  });

  it('a name already taken is a problem; the name is optional', async () => {
    const name = unique('v_taken');
    await create(name, { sql: 'select 1', connection_name: 'examples' });
    const res = await validate({ name, sql: 'select 1' });
    expect(res.body.valid).toBe(false);
    expect(res.body.errors.name).toMatch(/already exists/);
    expect((await validate({ sql: 'select 1' })).body.valid).toBe(true);
  });

  it('never saves', async () => {
    const name = unique('v_unsaved');
    const res = await validate({ name, sql: 'select * from films', connection_name: 'examples' });
    expect(res.body.valid).toBe(true);
    expectError(await origin.call('GET', at(name)), 404, 'query_not_found');
    const list = await origin.call('GET', `${API}?search=${name}`);
    expect(JSON.stringify(list.body)).not.toContain(name);
  });

  it('describes a write statement without refusing it', async () => {
    const res = await validate({ sql: 'delete from rentals where returned_at is null', connection_name: 'examples' });
    expect(res.body.statement).toMatchObject({ read: false, keyword: 'DELETE' });
    expect(typeof res.body.statement.refusal).toBe('string');
    expect(res.body.tables).toEqual(['rentals']);
  });

  it('reads tables through CTEs, subqueries and table functions; strings and comments name none', async () => {
    const res = await validate({
      sql:
        "with top as (select film_id from rentals group by film_id) select 'from secret' /* from hidden */ " +
        "from top join films on films.id = top.film_id, range(3) where films.id in (select film_id from film_genres)",
      connection_name: 'examples',
    });
    expect(res.body.tables).toEqual(['rentals', 'films', 'function:range', 'film_genres']);
  });

  it('SQL the analysis cannot follow has no tables and says why', async () => {
    const res = await validate({ sql: 'select * from (select 1', connection_name: 'examples' });
    expect(res.body.tables).toEqual([]);
    expect(res.body.tables_error).toMatch(/unbalanced/);
    const none = await validate({});
    expect(none.body.errors.sql).toBeDefined();
    expect(none.body.statement).toEqual({ read: false, keyword: '', refusal: expect.any(String) });
  });

  it('refuses a body of the wrong shape', async () => {
    expectError(await validate({ sql: 'select 1', bogus: true }), 400, 'unknown_field');
    expectError(await validate({ name: 42 }), 400, 'invalid_request');
  });
});

describe('GET /api/v1/queries/{name}/versions/{version}/flow', () => {
  it('answers tables, joins and formatted SQL in the connection dialect', async () => {
    const name = unique('f_join');
    await create(name, { sql: JOIN_SQL, parameters: { id: 'int' }, connection_name: 'examples' });
    const res = await flow(name, 1);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      query: name,
      version: 1,
      dialect: 'duckdb',
      tables: ['films', 'directors', 'film_genres'],
      joins: [
        { left: 'films', right: 'directors', type: 'INNER', on: 'd.id = f.director_id' },
        { left: 'films', right: 'film_genres', type: 'LEFT', on: 'fg.film_id = f.id' },
      ],
      formatted_sql: [
        'SELECT f.title, d.name',
        'FROM films f',
        'JOIN directors d ON d.id = f.director_id',
        'LEFT JOIN film_genres fg ON fg.film_id = f.id',
        'WHERE f.id = :id',
      ].join('\n'),
    });
  });

  it('each version has its own flow', async () => {
    const name = unique('f_versions');
    await create(name, { sql: 'select * from films', connection_name: 'examples' });
    const added = await origin.call('POST', `${at(name)}/versions`, {
      sql: 'select c.email from customers c join rentals r using (id) union select name from genres',
      connection_name: 'examples',
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect((await flow(name, 1)).body.tables).toEqual(['films']);
    const second = (await flow(name, 2)).body;
    expect(second.tables).toEqual(['customers', 'rentals', 'genres']);
    expect(second.joins).toEqual([{ left: 'customers', right: 'rentals', type: 'INNER', on: 'using (id)' }]);
    expect(second.formatted_sql).toContain('\nUNION\nSELECT name');
  });

  it('reads a version without a connection as postgres', async () => {
    const name = unique('f_noconn');
    await create(name, { sql: 'select * from "Films" join Directors on true' });
    const res = await flow(name, 1);
    expect(res.body).toMatchObject({ dialect: 'postgres', tables: ['Films', 'directors'] });
  });

  it('a version the analysis cannot follow gives 200 with an error and no tables', async () => {
    const name = unique('f_broken');
    await create(name, { sql: 'select * from (select 1', connection_name: 'examples' });
    const res = await flow(name, 1);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ query: name, version: 1, error: expect.stringMatching(/unbalanced/), tables: [] });
  });

  it('404 for an unknown query or version', async () => {
    expectError(await flow(unique('f_missing'), 1), 404, 'query_not_found');
    const name = unique('f_known');
    await create(name, { sql: 'select 1', connection_name: 'examples' });
    expectError(await flow(name, 2), 404, 'version_not_found');
    expectError(await flow(name, 'latest'), 404, 'version_not_found');
  });
});
