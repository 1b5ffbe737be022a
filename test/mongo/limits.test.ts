import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MongoEnv, executeMongo, seed, startMongoEnv } from './fixture.ts';
import { unique } from '../harness/unique.ts';

/** The server's limits on document runs: SLUICE_STREAM_MAX_ROWS caps a stream, SLUICE_QUERY_TIMEOUT answers 504. */

let env: MongoEnv;
let docs: string;
beforeAll(async () => {
  env = await startMongoEnv({ SLUICE_STREAM_MAX_ROWS: '5', SLUICE_QUERY_TIMEOUT: '1' });
  docs = await seed(env, Array.from({ length: 20 }, (_, k) => ({ i: k + 1 })));
});
afterAll(async () => {
  await env?.close();
});

describe('limits on document runs', () => {
  it('SLUICE_STREAM_MAX_ROWS cuts ndjson and csv streams', async () => {
    const ndjson = await (await executeMongo(env, { collection: docs, sort: { i: 1 } }, { stream: 'true', format: 'ndjson' })).text();
    expect(ndjson.trimEnd().split('\n')).toHaveLength(5);
    const csv = await (await executeMongo(env, { collection: docs, projection: { _id: 0, i: 1 }, sort: { i: 1 } }, { stream: 'true', format: 'csv' })).text();
    expect(csv).toBe('i\r\n1\r\n2\r\n3\r\n4\r\n5\r\n');
  });

  it('a read past SLUICE_QUERY_TIMEOUT answers 504 with the timeout, ad hoc and saved', async () => {
    const collection = unique('endless');
    const adhoc = await executeMongo(env, { collection });
    expect([adhoc.status, await adhoc.json()]).toEqual([504, expect.objectContaining({ timeout: 1 })]);
    expect(env.mongo.commands.findLast((c) => c.name === 'find' && c.collection === collection)?.maxTimeMS).toBe(1000);
    const name = unique('slow');
    const saved = await env.origin.call('POST', '/api/v1/queries', { name, query_type: 'mongo', connection_name: env.connection, mongo_collection: collection, publish: true });
    expect(saved.status).toBe(201);
    const run = await env.origin.call('GET', `/q/${name}?timeout=0.5`);
    expect([run.status, run.body.timeout]).toEqual([504, 0.5]);
  });
});
