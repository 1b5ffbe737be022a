import { Binary, Decimal128, Long } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MongoEnv, executeMongo, seed, startMongoEnv } from './fixture.ts';
import { unique } from '../harness/unique.ts';

/**
 * `POST /execute_mongo` and the `mongodb` connection over HTTP: pages and the
 * query's own window, values in every format, the connection's test, schema
 * and URI password.
 */

let env: MongoEnv;
let films: string;
beforeAll(async () => {
  env = await startMongoEnv();
  films = await seed(env, [
    {
      title: 'Alien',
      year: 1979,
      rating: 8.5,
      tags: ['scifi', 'horror'],
      big: Long.fromString('9007199254740993'),
      price: Decimal128.fromString('12.340'),
      at: new Date('2024-01-02T03:04:05.123Z'),
      raw: new Binary(Buffer.from('deadbeef', 'hex')),
      crew: { director: 'Scott', budget: Long.fromString('-9007199254740993') },
    },
    { title: 'Heat', year: 1995, rating: 8.3 },
    { title: 'Up', year: 2009 },
  ]);
});
afterAll(async () => {
  await env?.close();
});

describe('POST /execute_mongo', () => {
  it('answers a page of documents as rows, a projection naming the columns', async () => {
    const res = await executeMongo(env, { collection: films, filter: { year: { $gte: 1980 } }, projection: { _id: 0, title: 1, year: 1 }, sort: { year: -1 } });
    expect(res.status).toBe(200);
    expect([res.headers.get('x-page'), res.headers.get('x-has-more')]).toEqual(['1', 'false']);
    expect(await res.json()).toEqual([{ title: 'Up', year: 2009 }, { title: 'Heat', year: 1995 }]);
  });

  it("pages inside the query's own skip and limit", async () => {
    const body = { collection: films, projection: { _id: 0, title: 1 }, sort: { year: 1 }, skip: 1, limit: 2 };
    const first = await executeMongo(env, body, { page_size: 1 });
    expect([await first.json(), first.headers.get('x-has-more')]).toEqual([[{ title: 'Heat' }], 'true']);
    const second = await executeMongo(env, body, { page_size: 1, page: 2 });
    expect([await second.json(), second.headers.get('x-has-more')]).toEqual([[{ title: 'Up' }], 'false']);
    const past = await executeMongo(env, body, { page_size: 1, page: 3 });
    expect(await past.json()).toEqual({ message: 'No results returned' });
  });

  it('writes values exactly: ObjectId hex, Int64 and Decimal128 digits, dates in the server zone, binary base64, nested as JSON', async () => {
    const res = await executeMongo(env, { collection: films, filter: { title: 'Alien' } }, { format: 'ndjson', stream: 'true' });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).toContain('"big":9007199254740993,"price":12.340,"at":"2024-01-02T04:04:05.123+01:00","raw":"3q2+7w==","crew":{"director":"Scott","budget":-9007199254740993}');
    expect(text).toMatch(/"_id":"[0-9a-f]{24}"/);
    const csv = await (await executeMongo(env, { collection: films, filter: { title: 'Alien' }, projection: { _id: 0, tags: 1, crew: 1, big: 1 } }, { format: 'csv' })).text();
    expect(csv).toBe('tags,crew,big\r\n"[""scifi"",""horror""]","{""director"":""Scott"",""budget"":-9007199254740993}",9007199254740993\r\n');
  });

  it('answers a page in every format; nested values as JSON text in tsv and xlsx', async () => {
    const body = { collection: films, filter: { title: 'Alien' }, projection: { _id: 0, title: 1, crew: 1 } };
    const yaml = await (await executeMongo(env, body, { format: 'yaml' })).text();
    expect(yaml).toContain('crew: {"director":"Scott","budget":-9007199254740993}');
    const xml = await (await executeMongo(env, body, { format: 'xml' })).text();
    expect(xml).toContain('Scott');
    const tsv = await (await executeMongo(env, body, { format: 'tsv' })).text();
    expect(tsv).toBe('title\tcrew\nAlien\t{"director":"Scott","budget":-9007199254740993}\n');
    for (const format of ['xlsx', 'parquet']) {
      const res = await executeMongo(env, body, { format });
      expect([format, res.status, res.headers.get('content-disposition')]).toEqual([format, 200, `attachment; filename="result.${format}"`]);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
  });

  it('refuses a non-mongodb connection, and /execute_sql refuses a mongodb one', async () => {
    const sqlConnection = await env.origin.call('POST', '/execute_mongo', { connection_name: 'examples', collection: 'films' });
    expect([sqlConnection.status, sqlConnection.body.error]).toEqual([400, expect.stringContaining('mongodb connections')]);
    const sql = await env.origin.call('POST', '/execute_sql', { connection_name: env.connection, sql: 'SELECT 1' });
    expect([sql.status, sql.body.error]).toEqual([400, expect.stringContaining('/execute_mongo')]);
    const unknown = await env.origin.call('POST', '/execute_mongo', { connection_name: env.connection, collection: films, pipeline: [] });
    expect(unknown.status).toBe(400);
  });
});

describe('the mongodb connection', () => {
  it('tests, lists databases and the schema of its collections', async () => {
    const test = await env.origin.call('POST', '/api/v1/connections/test', { name: env.connection });
    expect(test.body).toMatchObject({ ok: true, warnings: [] });
    const databases = await env.origin.call('POST', '/api/v1/connections/databases', { name: env.connection });
    expect(databases.body.databases).toContain('test');
    const schema = await env.origin.call('GET', `/connections/${env.connection}/schema`);
    const table = schema.body.tables.find((t: { name: string }) => t.name === films);
    expect(table.columns.find((c: { name: string }) => c.name === 'big')).toMatchObject({ type: 'long', nullable: true });
    expect(table.columns.find((c: { name: string }) => c.name === 'title')).toMatchObject({ type: 'string', nullable: false });
  });

  it("keeps a URI's password as the connection's password: masked in the URI, kept when the mask comes back", async () => {
    const name = unique('uri');
    const secret = 'uri-pass-Zq81x';
    const uri = `mongodb://reader:${secret}@${env.mongo.host}:${env.mongo.port}/test`;
    const created = await env.origin.call('POST', '/api/v1/connections', { name, db: 'mongodb', options: { uri } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const masked = `mongodb://reader:********@${env.mongo.host}:${env.mongo.port}/test`;
    expect([created.body.password, created.body.options.uri]).toEqual(['********', masked]);
    const patched = await env.origin.call('PATCH', `/api/v1/connections/${name}`, { options: { uri: masked, appName: 'x' } });
    expect([patched.status, patched.body.password, patched.body.options.uri]).toEqual([200, '********', masked]);
    const twice = await env.origin.call('PATCH', `/api/v1/connections/${name}`, { password: 'other', options: { uri } });
    expect([twice.status, Object.keys(twice.body.errors)]).toEqual([400, ['options.uri']]);
    const audit = await env.origin.fetch('/api/v1/audit?limit=100');
    expect(await audit.text()).not.toContain(secret);
    const exported = await env.origin.fetch('/api/v1/config/export');
    expect(await exported.text()).not.toContain(secret);
  });
});
