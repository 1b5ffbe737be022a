import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL, runPrefix } from '../cache/fixture.ts';
import { ADMIN_KEY, type Reply, admin, as, makeKey } from '../grants/fixture.ts';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { connectMcp } from '../mcp/client.ts';
import { type FreshDatabase, freshDatabase } from '../harness/postgres-store.ts';
import { unique } from '../harness/unique.ts';
import { type TestDb, createTestDb } from '../query/fixture.ts';

/**
 * `values_query` (docs/reference/parameters.md#listed-values): a
 * parameter whose allowed values are a read statement's distinct values,
 * checked on save, shown as its enum wherever rules are shown, refused
 * outside the list with the values named, and read again when a value is
 * missing, on every origin sharing the store and Redis.
 */

let store: FreshDatabase;
let folder: string;
let pg: TestDb;
let a: Origin;
let b: Origin;
let connection: string;
const prefix = runPrefix('values');
const films = unique('films_by_rating');
const RATINGS = ['G', 'PG', 'PG-13', 'R'];

beforeAll(async () => {
  [store, folder] = await Promise.all([freshDatabase(), mkdtemp(join(tmpdir(), 'sluice-values-'))]);
  pg = await createTestDb('postgres', folder);
  await pg.exec(
    'CREATE TABLE films (id int PRIMARY KEY, title text, rating text)',
    "INSERT INTO films VALUES (1, 'Alpha', 'PG'), (2, 'Beta', 'R'), (3, 'Gamma', 'G'), (4, 'Delta', 'PG-13'), (5, 'Epsilon', 'PG'), (6, 'Zeta', NULL)",
  );
  const env = { SLUICE_DATABASE_URL: store.url, SLUICE_API_KEY: ADMIN_KEY, SLUICE_REDIS_URL: REDIS_URL, SLUICE_REDIS_PREFIX: prefix, SLUICE_VALUES_MAX: '5' };
  [a, b] = await Promise.all([
    startOrigin({ dataDir: join(folder, 'a'), template: false, env }),
    startOrigin({ dataDir: join(folder, 'b'), template: false, env }),
  ]);
  connection = unique('pg');
  const res = await admin(a, 'POST', '/api/v1/connections', { name: connection, ...pg.fields });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const saved = await admin(a, 'POST', '/api/v1/queries', {
    name: films,
    sql: 'select id, title from films where rating = :rating order by id',
    parameters: { rating: { type: 'string', values_query: 'select distinct rating from films', description: 'A film rating' } },
    connection_name: connection,
    publish: true,
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(201);
}, 120_000);

afterAll(async () => {
  await a?.call('DELETE', '/api/v1/cache/entries', undefined, { 'x-api-key': ADMIN_KEY });
  await Promise.all([a?.stop(), b?.stop()]);
  await pg?.drop();
  await store?.drop();
  if (folder) await rm(folder, { recursive: true, force: true });
});

const q = (origin: Origin, rating: string): Promise<Reply> => admin(origin, 'GET', `/q/${films}?rating=${encodeURIComponent(rating)}`);

describe('a parameter with values_query', () => {
  it('is documented with its values as the enum, in ascending order, and never shows its SQL', async () => {
    const openapi = await admin(a, 'GET', '/openapi.json');
    const get = openapi.body.paths[`/q/${films}`].get;
    const rating = get.parameters.find((p: { name: string }) => p.name === 'rating');
    expect(rating.schema.enum).toEqual(RATINGS);
    expect(rating.example).toBe('G');
    const key = await makeKey(a, { queries: [films] });
    const catalog = await as(b, key.secret).get('/catalog');
    const entry = catalog.body.queries.find((q: { name: string }) => q.name === films);
    expect(entry.parameters.rating).toMatchObject({ type: 'string', enum: RATINGS });
    expect(JSON.stringify(catalog.body)).not.toContain('select distinct');
    const mcp = await connectMcp(`${b.url}/mcp`, { 'x-api-key': ADMIN_KEY });
    try {
      const { tools } = await mcp.client.listTools();
      const tool = tools.find((t) => t.description?.includes('A film rating') || t.name.startsWith(films.slice(0, 10)))!;
      expect((tool.inputSchema.properties as Record<string, { enum?: unknown[] }>).rating!.enum).toEqual(RATINGS);
    } finally {
      await mcp.close();
    }
  });

  it('must also be in its enum when it has one: both rules hold', async () => {
    const name = unique('enum_and_values');
    const saved = await admin(a, 'POST', '/api/v1/queries', {
      name,
      sql: 'select id from films where rating = :rating order by id',
      parameters: { rating: { type: 'string', enum: ['PG', 'R', 'X'], values_query: 'select distinct rating from films' } },
      connection_name: connection,
      publish: true,
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    expect((await admin(b, 'GET', `/q/${name}?rating=R`)).body).toEqual([{ id: 2 }]);
    expect((await admin(b, 'GET', `/q/${name}?rating=G`)).body.errors).toEqual({ rating: 'must be one of: PG, R, X' });
    expect((await admin(b, 'GET', `/q/${name}?rating=X`)).body.errors.rating).toMatch(/^must be one of: G, /);
    const openapi = await admin(a, 'GET', '/openapi.json');
    expect(openapi.body.paths[`/q/${name}`].get.parameters[0].schema.enum).toEqual(['PG', 'R']);
  });

  it('runs a listed value and refuses another with 400 naming the allowed values', async () => {
    const ok = await q(a, 'PG');
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.map((row: { id: number }) => row.id)).toEqual([1, 5]);
    const refused = await q(b, 'XYZ');
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual({ rating: 'must be one of: G, PG, PG-13, R' });
  });

  it('accepts a value inserted a moment ago on the next request, on another origin sharing Redis', async () => {
    const before = await admin(a, 'GET', `/api/v1/queries/${films}/versions/1/parameters/rating/values`);
    expect(before.body).toMatchObject({ items: RATINGS, count: 4 });
    // A value not in the list reads it again once it is 10 s old (at most once per 10 s per parameter).
    const wait = Date.parse(before.body.refreshed_at) + 10_500 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    await pg.exec("INSERT INTO films VALUES (7, 'Eta', 'NC-17')");
    const ok = await q(b, 'NC-17');
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toEqual([{ id: 7, title: 'Eta' }]);
    const after = await admin(a, 'GET', `/api/v1/queries/${films}`);
    expect(after.body.parameter_values.rating).toMatchObject({ items: ['G', 'NC-17', 'PG', 'PG-13', 'R'], count: 5 });
    expect(after.body.parameters.rating).toMatchObject({ values_query: 'select distinct rating from films' });
  }, 30_000);

  it('is read again on ?refresh=true; a parameter that lists nothing is 404', async () => {
    await pg.exec("UPDATE films SET rating = 'PG' WHERE id = 7");
    const refreshed = await admin(b, 'GET', `/api/v1/queries/${films}/versions/1/parameters/rating/values?refresh=true`);
    expect(refreshed.body).toMatchObject({ items: RATINGS, count: 4 });
    const missing = await admin(b, 'GET', `/api/v1/queries/${films}/versions/1/parameters/nope/values`);
    expect(missing.status).toBe(404);
  });
});

describe('an integer parameter whose values pass 2^53', () => {
  it('lists them exactly, as their digits in JSON answers, and binds them exactly', async () => {
    const name = unique('big_ids');
    const saved = await admin(a, 'POST', '/api/v1/queries', {
      name,
      sql: 'select id from films where id + 9007199254740992 = :big',
      parameters: { big: { type: 'integer', values_query: 'select id + 9007199254740992 from films where id in (1, 3)' } },
      connection_name: connection,
      publish: true,
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    const items = ['9007199254740993', '9007199254740995'];
    expect((await admin(b, 'GET', `/api/v1/queries/${name}/versions/1/parameters/big/values`)).body).toMatchObject({ items, count: 2 });
    expect((await admin(b, 'GET', `/api/v1/queries/${name}`)).body.parameter_values.big).toMatchObject({ items });
    const openapi = await admin(a, 'GET', '/openapi.json');
    expect(openapi.body.paths[`/q/${name}`].get.parameters[0].schema.enum).toEqual(items);
    expect((await admin(b, 'GET', `/q/${name}?big=9007199254740995`)).body).toEqual([{ id: 3 }]);
    expect((await admin(b, 'GET', `/q/${name}?big=9007199254740994`)).body.errors).toEqual({ big: `must be one of: ${items.join(', ')}` });
  });
});

describe('on MariaDB, DuckDB and SQLite', () => {
  it.each(['mysql', 'duckdb', 'sqlite'] as const)('%s lists a column\'s values, in ascending order, typed as the parameter', async (dialect) => {
    const db = await createTestDb(dialect, folder);
    try {
      await db.exec('CREATE TABLE sizes (id INT PRIMARY KEY, size INT)', 'INSERT INTO sizes VALUES (1, 10), (2, 2), (3, 10), (4, NULL)');
      const name = unique(`sizes_${dialect}`);
      const conn = await admin(a, 'POST', '/api/v1/connections', { name: unique(dialect), ...db.fields });
      expect(conn.status, JSON.stringify(conn.body)).toBe(201);
      const saved = await admin(a, 'POST', '/api/v1/queries', {
        name,
        sql: 'select id from sizes where size = :size order by id',
        parameters: { size: { type: 'integer', values_query: 'select size from sizes' } },
        connection_name: conn.body.name,
        publish: true,
      });
      expect(saved.status, JSON.stringify(saved.body)).toBe(201);
      const values = await admin(b, 'GET', `/api/v1/queries/${name}/versions/1/parameters/size/values`);
      expect(values.body).toMatchObject({ items: [2, 10], count: 2 });
      const ok = await admin(b, 'GET', `/q/${name}?size=10`);
      expect(ok.body, JSON.stringify(ok.body)).toEqual([{ id: 1 }, { id: 3 }]);
      const refused = await admin(b, 'GET', `/q/${name}?size=3`);
      expect(refused.body.errors).toEqual({ size: 'must be one of: 2, 10' });
    } finally {
      await db.drop();
    }
  });
});

describe('saving a values_query', () => {
  const save = (values_query: string, via: 'save' | 'validate' = 'save') =>
    admin(a, 'POST', via === 'save' ? '/api/v1/queries' : '/api/v1/queries/validate', {
      name: unique('bad_values'),
      sql: 'select * from films where rating = :rating',
      parameters: { rating: { type: 'string', values_query } },
      connection_name: connection,
    });

  it.each([
    ['writes', "delete from films where rating = 'none' returning rating", /values_query must be a read: DELETE is a write/],
    ['returns two columns', 'select rating, id from films', /must return one column; it returns 2/],
    ['returns more than SLUICE_VALUES_MAX values', 'select g from generate_series(1, 6) g', /more than 5 distinct values \(SLUICE_VALUES_MAX\)/],
    ['fails', 'select nope from films', /column "nope" does not exist/],
  ])('is refused when it %s, on save and by validate', async (_, sql, problem) => {
    const saved = await save(sql);
    expect(saved.status, JSON.stringify(saved.body)).toBe(400);
    expect(saved.body.errors['parameters.rating']).toMatch(problem);
    const validated = await save(sql, 'validate');
    expect(validated.body.valid).toBe(false);
    expect(validated.body.errors['parameters.rating']).toMatch(problem);
  });
});
