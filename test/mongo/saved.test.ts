import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, configFile, sendFile, startConfigOrigin } from '../config/fixture.ts';
import type { Origin } from '../harness/origin.ts';
import { type MongoEnv, executeMongo, seed, startMongoEnv } from './fixture.ts';
import { unique } from '../harness/unique.ts';

/**
 * Saved document queries (`query_type: mongo`): saved, versioned and run at
 * /q like SQL ones; parameters bound as values only; the refused operators
 * refused on save and on run; grants as for ad-hoc SQL on /execute_mongo;
 * and the configuration file round trip.
 */

let env: MongoEnv;
let films: string;
const as = { 'x-api-key': ADMIN_KEY };
const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = as) => env.origin.call(method, path, body, headers);

beforeAll(async () => {
  env = await startMongoEnv({ SLUICE_API_KEY: ADMIN_KEY });
  films = await seed(env, [
    { title: 'Alien', year: 1979, genre: 'scifi' },
    { title: 'Heat', year: 1995, genre: 'crime' },
    { title: 'Up', year: 2009, genre: 'family' },
    { title: '$title', year: 2020, genre: 'odd' },
  ]);
});
afterAll(async () => {
  await env?.close();
});

async function saveQuery(body: Record<string, unknown>) {
  const name = unique('mq');
  const res = await call('POST', '/api/v1/queries', { name, query_type: 'mongo', connection_name: env.connection, mongo_collection: films, publish: true, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { name, body: res.body };
}

describe('saved document queries', () => {
  it('are saved with their mongo fields, run at /q with typed parameters, and page like SQL', async () => {
    const { name, body } = await saveQuery({
      mongo_filter: { year: { $gte: ':from' } },
      mongo_projection: { _id: 0, title: 1, year: 1 },
      mongo_sort: { year: 1 },
      parameters: { from: { type: 'integer', min: 0 } },
    });
    expect(body).toMatchObject({ mongo_collection: films, mongo_filter: { year: { $gte: ':from' } }, sql: null });
    expect(body.versions[0]).toMatchObject({ query_type: 'mongo', mongo_sort: { year: 1 } });
    const page = await env.origin.fetch(`/q/${name}?from=1990&page_size=2`, { headers: as });
    expect(page.status).toBe(200);
    expect(page.headers.get('x-has-more')).toBe('true');
    expect(await page.json()).toEqual([{ title: 'Heat', year: 1995 }, { title: 'Up', year: 2009 }]);
    const last = await call('GET', `/q/${name}?from=1990&page_size=2&page=2`);
    expect([last.body, last.headers.get('x-has-more')]).toEqual([[{ title: '$title', year: 2020 }], 'false']);
    // A whole number past 2^53 is bound as a 64-bit integer, exactly.
    const big = await call('GET', `/q/${name}?from=9007199254740993`);
    expect([big.status, big.body]).toEqual([200, { message: 'No results returned' }]);
    const bad = await call('GET', `/q/${name}?from=abc`);
    expect([bad.status, Object.keys(bad.body.errors)]).toEqual([400, ['from']]);
    expect((await call('GET', `/q/${name}`)).status).toBe(400);
  });

  it('keep their query type in a new version that changes only the filter', async () => {
    const { name } = await saveQuery({ mongo_filter: { genre: ':g' }, mongo_projection: { _id: 0, title: 1 }, parameters: { g: 'string' } });
    const added = await call('POST', `/api/v1/queries/${name}/versions`, { mongo_filter: { genre: ':g', year: { $gte: 2000 } }, publish: true });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const read = await call('GET', `/api/v1/queries/${name}`);
    expect(read.body.versions[0]).toMatchObject({ version: 2, query_type: 'mongo', mongo_collection: films, mongo_filter: { genre: ':g', year: { $gte: 2000 } } });
    const rows = await call('GET', `/q/${name}?g=crime`);
    expect(rows.status).toBe(200);
  });

  it('are cached like SQL queries, and listed in /catalog with their parameters', async () => {
    const { name } = await saveQuery({ mongo_filter: { genre: ':g' }, parameters: { g: 'string' }, cache_ttl: 60 });
    const first = await call('GET', `/q/${name}?g=crime`);
    const second = await call('GET', `/q/${name}?g=crime`);
    expect([first.headers.get('x-cache'), second.headers.get('x-cache'), second.body]).toEqual(['MISS', 'HIT', first.body]);
    const catalog = await call('GET', '/catalog');
    expect(catalog.body.queries.find((q: { name: string }) => q.name === name)).toMatchObject({ cache_ttl: 60, connection_name: env.connection });
  });

  it('list a parameter\'s allowed values from a field of their collection (values_field)', async () => {
    const { name } = await saveQuery({ mongo_filter: { genre: ':genre' }, mongo_projection: { _id: 0, title: 1 }, parameters: { genre: { type: 'string', values_field: 'genre' } } });
    const values = await call('GET', `/api/v1/queries/${name}/versions/1/parameters/genre/values`);
    expect(values.body).toMatchObject({ items: ['crime', 'family', 'odd', 'scifi'], count: 4 });
    expect((await call('GET', `/q/${name}?genre=crime`)).body).toEqual([{ title: 'Heat' }]);
    const refused = await call('GET', `/q/${name}?genre=drama`);
    expect([refused.status, refused.body.errors]).toEqual([400, { genre: 'must be one of: crime, family, odd, scifi' }]);
    const sqlRule = await call('POST', '/api/v1/queries', { name: unique('mq'), query_type: 'mongo', connection_name: env.connection, mongo_collection: films, mongo_filter: { genre: ':genre' }, parameters: { genre: { values_query: 'select 1' } } });
    expect([sqlRule.status, sqlRule.body.errors]).toEqual([400, { 'parameters.genre': 'values_query applies to SQL queries: a mongo query lists values with values_field' }]);
  });

  it('refuses on save what runs code, reads other collections or cannot bind', async () => {
    const base = { name: unique('bad'), query_type: 'mongo', connection_name: env.connection, mongo_collection: films };
    const where = await call('POST', '/api/v1/queries', { ...base, mongo_filter: { $and: [{ $where: 'sleep(100) || true' }] } });
    expect([where.status, where.body.errors.mongo_filter]).toEqual([400, expect.stringContaining('$where')]);
    const fn = await call('POST', '/api/v1/queries', { ...base, mongo_filter: { $expr: { $function: { body: 'return 1', args: [], lang: 'js' } } } });
    expect(fn.body.errors.mongo_filter).toContain('$function');
    const lookup = await call('POST', '/api/v1/queries', { ...base, mongo_projection: { x: { $lookup: {} } } });
    expect(lookup.body.errors.mongo_projection).toContain('$lookup');
    const unused = await call('POST', '/api/v1/queries', { ...base, mongo_filter: {}, parameters: { y: 'integer' } });
    expect(unused.body.errors['parameters.y']).toContain('never uses it');
    const sqlConnection = await call('POST', '/api/v1/queries', { ...base, connection_name: 'examples', mongo_filter: {} });
    expect(sqlConnection.body.errors.connection_name).toContain('mongodb connection');
    const sqlOnMongo = await call('POST', '/api/v1/queries', { name: unique('sql'), sql: 'SELECT 1', connection_name: env.connection });
    expect(sqlOnMongo.body.errors.connection_name).toContain('mongodb connection');
  });

  it('binds parameter values as values: an operator object is refused, operator text stays text', async () => {
    const { name } = await saveQuery({ mongo_filter: { title: ':title' }, parameters: { title: {} } });
    // An untyped parameter takes any single value, but an object never.
    const object = await call('POST', `/q/${name}`, { params: { title: { $gt: '' } } });
    expect([object.status, Object.keys(object.body.errors)]).toEqual([400, ['title']]);
    const array = await call('POST', `/q/${name}`, { params: { title: [{ $ne: null }] } });
    expect(array.status).toBe(400);
    // The same text from a query string is a string: it matches no title.
    const text = await call('GET', `/q/${name}?title=${encodeURIComponent('{"$gt": ""}')}`);
    expect([text.status, text.body]).toEqual([200, { message: 'No results returned' }]);
    const exact = await call('POST', `/q/${name}`, { params: { title: 'Heat' } });
    expect(exact.body.map((d: any) => d.title)).toEqual(['Heat']);
  });

  it('binds inside $expr as a literal, so "$title" is text there, not a field', async () => {
    const { name } = await saveQuery({ mongo_filter: { $expr: { $eq: ['$title', ':t'] } }, parameters: { t: 'string' } });
    const res = await call('GET', `/q/${name}?t=${encodeURIComponent('$title')}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.map((d: any) => d.title)).toEqual(['$title']);
  });

  it('refuses the operators on run too, and on /execute_mongo', async () => {
    const where = await executeMongo(env, { collection: films, filter: { $or: [{ $where: 'true' }] } }, {});
    expect(where.status).toBe(400);
    expect((await where.json()).errors.filter).toContain('$where');
    const param = await executeMongo(env, { collection: films, filter: { title: ':t' }, params: { t: { $ne: null } } });
    expect([param.status, Object.keys((await param.json()).errors)]).toEqual([400, ['t']]);
    const missing = await executeMongo(env, { collection: films, filter: { title: ':t' } });
    expect(missing.status).toBe(400);
    const value = await executeMongo(env, { collection: films, filter: { title: ':t' }, params: { t: 'Up' } });
    expect((await value.json()).map((d: any) => d.title)).toEqual(['Up']);
  });
});

describe('grants', () => {
  it('/execute_mongo needs a connections grant, as ad-hoc SQL does', async () => {
    const { name } = await saveQuery({ mongo_filter: {} });
    const queriesOnly = await call('POST', '/api/v1/api-keys', { name: unique('k'), queries: [name] });
    const granted = await call('POST', '/api/v1/api-keys', { name: unique('k'), connections: [env.connection] });
    const body = { connection_name: env.connection, collection: films };
    const refused = await env.origin.call('POST', '/execute_mongo', body, { 'x-api-key': queriesOnly.body.secret });
    expect(refused.status).toBe(403);
    expect((await env.origin.call('GET', `/q/${name}`, undefined, { 'x-api-key': queriesOnly.body.secret })).status).toBe(200);
    const ok = await env.origin.call('POST', '/execute_mongo', body, { 'x-api-key': granted.body.secret });
    expect(ok.status).toBe(200);
    const sql = await env.origin.call('POST', '/execute_sql', { ...body, collection: undefined, sql: 'SELECT 1' }, as);
    expect([sql.status, sql.body.error]).toEqual([400, expect.stringContaining('/execute_mongo')]);
  });

  it('/execute_mongo?dry_run=true checks as the run does and answers with no estimate (docs/reference/budgets.md)', async () => {
    const body = { connection_name: env.connection, collection: films, dry_run: true };
    const dry = await env.origin.call('POST', '/execute_mongo', body, as);
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body).toEqual({ dry_run: true, connection: env.connection, dialect: 'mongodb', statement_type: 'FIND', tables: [films], parameters: {}, estimate: { rows: null, cost: null, source: 'none' }, would_refuse: null });
    const refused = await env.origin.call('POST', '/execute_mongo', { ...body, connection_name: 'no_such_connection' }, as);
    expect(refused.status).toBe(404);
  });
});

describe('configuration as code', () => {
  let target: Origin;
  afterAll(async () => {
    await target?.stop();
  });

  it('exports a mongo query and its connection; a fresh server applies it and runs it', async () => {
    const { name } = await saveQuery({ mongo_filter: { genre: ':g' }, mongo_sort: { year: -1 }, parameters: { g: 'string' }, tags: ['docs'] });
    const file = (await call('GET', '/api/v1/config/export')).body;
    const entry = file.queries.find((q: any) => q.name === name);
    expect(entry).toEqual({ name, query_type: 'mongo', mongo_collection: films, mongo_filter: { genre: ':g' }, mongo_sort: { year: -1 }, parameters: { g: 'string' }, connection_name: env.connection, tags: ['docs'] });
    target = await startConfigOrigin();
    const connection = file.connections.find((c: any) => c.name === env.connection);
    const applied = await sendFile(target, 'apply', configFile({ connections: [connection], queries: [entry] }));
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    const diff = await sendFile(target, 'diff', configFile({ connections: [connection], queries: [entry] }));
    expect(diff.body.changed, JSON.stringify(diff.body)).toBe(false);
    const run = await target.call('GET', `/q/${name}?g=crime`, undefined, as);
    expect(run.body.map((d: any) => d.title)).toEqual(['Heat']);
  });
});
