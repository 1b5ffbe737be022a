import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { QUERIES, SECRET_LITERAL, save } from './fixture.ts';
import { unique } from '../harness/unique.ts';

/**
 * `GET /catalog` on a server with an admin key and writes enabled: the key is
 * needed, and the answer lists exactly the published queries (by name, no SQL)
 * with the caller's write settings.
 */

const KEY = 'discovery-catalog-key-0123456789';
const auth = { 'x-api-key': KEY };
const tag = unique('cat').slice(4);

const FILMS = `cat films ${tag}`;
const CACHED = `cat cached ${tag}`;
const WRITE = `cat write ${tag}`;
const DRAFT = `cat draft ${tag}`;
const FILED = `cat filed ${tag}`;
const ZERO_TTL = `cat zero ttl ${tag}`;
const COLLECTION = `cat-${tag}`;

const FILMS_SQL = `select title from films where id = :id and title <> '${SECRET_LITERAL}' and price <= :max_price`;

let origin: Origin;
let body: any;
const entry = (name: string) => body.queries.find((q: { name: string }) => q.name === name);

beforeAll(async () => {
  origin = await startOrigin({ env: { SLUICE_API_KEY: KEY, SLUICE_ALLOW_WRITES: '1' } });
  await save(
    origin,
    {
      name: FILMS,
      sql: FILMS_SQL,
      description: 'Films by id',
      tags: ['films', 'demo'],
      parameters: { id: 'int', max_price: { type: 'float', default: 10, description: 'Highest price' } },
    },
    auth,
  );
  await save(origin, { name: CACHED, sql: 'select 1 as one', cache_ttl: 60 }, auth);
  await save(origin, { name: ZERO_TTL, sql: 'select 1 as one', cache_ttl: 0 }, auth);
  await save(origin, { name: WRITE, sql: "insert into genres (id, name) values (:id, 'x')", parameters: { id: 'int' } }, auth);
  await save(origin, { name: DRAFT, sql: 'select 1 as one', publish: false }, auth);
  await save(origin, { name: FILED, sql: 'select 1 as one', collection: COLLECTION, connection_name: null }, auth);
  const res = await origin.call('GET', '/catalog', undefined, auth);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  body = res.body;
});

afterAll(async () => {
  await origin?.stop();
});

describe('GET /catalog', () => {
  it('needs the key: 401 without one or with a wrong one, in the query-route error shape', async () => {
    for (const headers of [{}, { 'x-api-key': 'wrong' }] as Array<Record<string, string>>) {
      const res = await origin.call('GET', '/catalog', undefined, headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
  });

  it('lists exactly the published queries, sorted by name', async () => {
    const names: string[] = body.queries.map((q: { name: string }) => q.name);
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(names).toEqual(expect.arrayContaining([FILMS, CACHED, ZERO_TTL, WRITE, FILED]));
    expect(names).not.toContain(DRAFT);
    const listed = await origin.call('GET', `${QUERIES}?status=published`, undefined, auth);
    expect(new Set(names)).toEqual(new Set(listed.body.queries.map((q: { name: string }) => q.name)));
  });

  it('shows each query with its published version, parameters in the alias form, never SQL', () => {
    expect(entry(FILMS)).toEqual({
      name: FILMS,
      version: 1,
      description: 'Films by id',
      tags: ['films', 'demo'],
      connection_name: 'examples',
      parameters: { id: 'integer', max_price: { type: 'number', default: 10, description: 'Highest price' } },
      cache_ttl: null,
      can_write: false,
      collection: null,
      columns: [{ name: 'title', description: null }],
    });
    const text = JSON.stringify(body);
    expect(text).not.toContain(SECRET_LITERAL);
    expect(text).not.toContain('select title from films');
    expect(text).not.toContain('insert into genres');
  });

  it('gives cache_ttl as a number when cached, null when 0 or unset', () => {
    expect(entry(CACHED).cache_ttl).toBe(60);
    expect(entry(ZERO_TTL).cache_ttl).toBeNull();
    expect(entry(FILMS).cache_ttl).toBeNull();
  });

  it('marks can_write only on write SQL, for an admin with writes enabled', () => {
    expect(entry(WRITE).can_write).toBe(true);
    expect(entry(CACHED).can_write).toBe(false);
  });

  it('shows the collection and a missing default connection', () => {
    expect(entry(FILED)).toMatchObject({ collection: COLLECTION, connection_name: null, parameters: {} });
  });

  it("describes the caller: the admin key, the server's write setting, no limits yet", () => {
    expect(body.caller).toEqual({
      name: 'admin',
      admin: true,
      allow_writes: true,
      allowed_write_ops: null,
      rate_limit: null,
      server_rate_limit: null,
      budget: null,
    });
  });

  it('follows publishing: unpublished queries leave, a new published version shows', async () => {
    const at = (name: string) => `${QUERIES}/${encodeURIComponent(name)}`;
    expect((await origin.call('POST', `${at(CACHED)}/unpublish`, undefined, auth)).status).toBe(200);
    const added = await origin.call('POST', `${at(FILED)}/versions`, { sql: 'select 2 as two', publish: true, connection_name: 'examples' }, auth);
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const after = (await origin.call('GET', '/catalog', undefined, auth)).body;
    const names = after.queries.map((q: { name: string }) => q.name);
    expect(names).not.toContain(CACHED);
    expect(after.queries.find((q: { name: string }) => q.name === FILED)).toMatchObject({ version: 2, connection_name: 'examples' });
  });
});
