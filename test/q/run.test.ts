import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG } from '../api/connections-fixtures.ts';
import type { Origin } from '../harness/origin.ts';
import { createQuery, getQ, postQ, requestIdOf, wasRecorded } from './fixture.ts';
import { unique } from '../harness/unique.ts';
import { sharedOrigin } from '../harness/shared-origin.ts';

/** GET and POST /q/<name> on the examples connection (DuckDB) and a Postgres connection. */

let origin: Origin;
let pg: string;
/** `SELECT id, title FROM films WHERE id <= :max_id ORDER BY id`, max_id an int of at least 1. */
let films: string;

const FORMATS = ['json', 'ndjson', 'csv', 'tsv', 'xml', 'yaml', 'xlsx', 'parquet'];

beforeAll(async () => {
  origin = await sharedOrigin();
  pg = unique('pg');
  const made = await origin.call('POST', '/api/v1/connections', { name: pg, db: 'postgres', host: PG.host, port: PG.port, user: PG.user, database: PG.database });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  films = await createQuery(origin, {
    sql: 'SELECT id, title FROM films WHERE id <= :max_id ORDER BY id',
    parameters: { max_id: { type: 'integer', min: 1 } },
  }, 'films');
});

afterAll(async () => {
  await origin?.stop();
});

const ids = (body: unknown) => (body as Array<{ id: number }>).map((row) => row.id);

describe('GET /q/<name>', () => {
  it('converts query-string parameters by their rules and answers a page with the paging headers', async () => {
    const res = await getQ(origin, films, { max_id: 5 });
    expect(res.status, res.text).toBe(200);
    expect(ids(res.body)).toEqual([1, 2, 3, 4, 5]);
    expect(res.headers.get('x-page')).toBe('1');
    expect(res.headers.get('x-page-size')).toBe('10');
    expect(res.headers.get('x-has-more')).toBe('false');
  });

  it('pages within the result', async () => {
    const second = await getQ(origin, films, { max_id: 5, page: 2, page_size: 2 });
    expect(ids(second.body)).toEqual([3, 4]);
    expect(second.headers.get('x-has-more')).toBe('true');
    const last = await getQ(origin, films, { max_id: 5, page: 3, page_size: 2 });
    expect(ids(last.body)).toEqual([5]);
    expect(last.headers.get('x-has-more')).toBe('false');
    const past = await getQ(origin, films, { max_id: 5, page: 4, page_size: 2 });
    expect(past.body).toEqual({ message: 'No results returned' });
  });

  it.each(FORMATS)('answers format %s', async (format) => {
    const res = await getQ(origin, films, { max_id: 2, format });
    expect(res.status, res.text).toBe(200);
    expect(res.text.length).toBeGreaterThan(0);
    const disposition = res.headers.get('content-disposition');
    if (format === 'xlsx' || format === 'parquet') expect(disposition).toBe(`attachment; filename="${films}.${format}"`);
    else expect(disposition).toBeNull();
    if (format === 'csv') expect(res.text).toBe('id,title\r\n1,The Quiet Harbour\r\n2,Café de l\'Été\r\n');
  });

  it('streams the whole result with stream=true, as a download named after the query', async () => {
    const res = await getQ(origin, films, { max_id: 40, stream: 'true', format: 'ndjson' });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${films}.ndjson"`);
    const lines = res.text.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.map((row) => row.id)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(res.headers.get('x-page')).toBeNull();
  });

  it('refuses stream=true with paging or an unstreamable format, as /execute_sql does', async () => {
    expect((await getQ(origin, films, { max_id: 3, stream: 'true', format: 'json' })).status).toBe(400);
    expect((await getQ(origin, films, { max_id: 3, stream: 'true', format: 'csv', page: 1 })).status).toBe(400);
    expect((await getQ(origin, films, { max_id: 3, format: 'html' })).status).toBe(400);
    expect((await getQ(origin, films, { max_id: 3, page_size: 5000 })).status).toBe(400);
  });

  it('sanitises the download name of a query named with spaces', async () => {
    const name = await createQuery(origin, { sql: 'SELECT 1 AS one' }, 'two words');
    const res = await getQ(origin, name, { format: 'xlsx' });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${name.replace(' ', '_')}.xlsx"`);
  });

  it('refuses a repeated parameter, naming it, and never picks one of the values', async () => {
    const res = await getQ(origin, films, 'max_id=1&max_id=2');
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toBe('Invalid parameters');
    expect(Object.keys(res.body.errors)).toEqual(['max_id']);
    expect(res.body.errors.max_id).toMatch(/more than once/);
    expect(await wasRecorded(origin, requestIdOf(res))).toBe(false);
  });

  it('refuses a repeated request option, naming it', async () => {
    const res = await getQ(origin, films, 'max_id=1&format=csv&format=json');
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toMatch(/format/);
  });

  it('never takes the request options as parameters, and ignores arguments the query does not use', async () => {
    // `:page` is not declared (it could not be: the name is reserved), so it is required, and ?page= is paging.
    const name = await createQuery(origin, { sql: 'SELECT CAST(:page AS VARCHAR) AS p' });
    const res = await getQ(origin, name, { page: 1, format: 'json', unrelated: 'x' });
    expect(res.status, res.text).toBe(400);
    expect(res.body.errors).toEqual({ page: 'is required' });
    const posted = await postQ(origin, name, { params: { page: 'mine' }, page: 1 });
    expect(posted.status, posted.text).toBe(200);
    expect(posted.body).toEqual([{ p: 'mine' }]);
  });
});

describe('POST /q/<name>', () => {
  it('takes typed JSON parameters and the row options from the body', async () => {
    const res = await postQ(origin, films, { params: { max_id: 4 }, format: 'csv', page: 2, page_size: 2 });
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe('id,title\r\n3,東京の夜\r\n4,"Don\'t Look Back, Darling"\r\n');
    expect(res.headers.get('x-page')).toBe('2');
  });

  it('refuses JSON values of the wrong type (no conversion from text)', async () => {
    const res = await postQ(origin, films, { params: { max_id: '4' } });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({ error: 'Invalid parameters', errors: { max_id: expect.stringMatching(/integer/) } });
  });

  it('streams from the body, and lets the query string carry options', async () => {
    const res = await postQ(origin, films, { params: { max_id: 3 }, stream: true }, 'format=tsv');
    expect(res.status, res.text).toBe(200);
    expect(res.text.trim().split('\n')).toHaveLength(4);
  });

  it('refuses unknown body fields and parameters put in the query string', async () => {
    expect((await postQ(origin, films, { params: { max_id: 3 }, sql: 'SELECT 2' })).status).toBe(400);
    const stray = await postQ(origin, films, { params: {} }, 'max_id=3');
    expect(stray.status).toBe(400);
    expect(stray.body.error).toMatch(/max_id/);
    expect((await postQ(origin, films, '{not json')).status).toBe(400);
  });

  it('runs a query without parameters with no body at all', async () => {
    const name = await createQuery(origin, { sql: 'SELECT 42 AS answer' });
    const res = await origin.fetch(`/q/${name}`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([{ answer: 42 }]);
  });
});

describe('connection', () => {
  it("runs on the version's saved connection unless the request names another", async () => {
    const name = await createQuery(origin, { sql: 'SELECT version() AS v' });
    expect((await getQ(origin, name)).body[0].v).toMatch(/^v\d/); // DuckDB
    expect((await getQ(origin, name, { connection_name: pg })).body[0].v).toMatch(/^PostgreSQL/);
    expect((await postQ(origin, name, { connection_name: pg })).body[0].v).toMatch(/^PostgreSQL/);
  });

  it('needs a connection when the query has none saved', async () => {
    const name = await createQuery(origin, { sql: 'SELECT 1 AS one', connection_name: null });
    const res = await getQ(origin, name);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/connection_name/);
    expect((await getQ(origin, name, { connection_name: 'examples' })).body).toEqual([{ one: 1 }]);
  });

  it('answers 404 for an unknown connection', async () => {
    const res = await getQ(origin, films, { max_id: 1, connection_name: unique('nowhere') });
    expect(res.status).toBe(404);
  });

  it('binds typed values on Postgres', async () => {
    const name = await createQuery(origin, {
      sql: 'SELECT CAST(:n AS bigint) + 1 AS next, CAST(:flag AS boolean) AS flag, CAST(:label AS text) AS label',
      parameters: { n: 'integer', flag: 'boolean', label: { type: 'string', default: 'none' } },
      connection_name: pg,
    });
    const res = await getQ(origin, name, { n: '9007199254740993', flag: 'true' });
    expect(res.status, res.text).toBe(200);
    expect(res.text).toContain('9007199254740994');
    expect(res.body[0]).toMatchObject({ flag: true, label: 'none' });
  });
});
