import { Binary, Decimal128, Long } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MongoEnv, executeMongo, seed, startMongoEnv } from './fixture.ts';

let env: MongoEnv;
let films: string;
beforeAll(async () => {
  env = await startMongoEnv();
  films = await seed(env, [
    { title: 'Alien', year: 1979, rating: 8.5, tags: ['scifi'], big: Long.fromString('9007199254740993'), price: Decimal128.fromString('12.340'), at: new Date('2024-01-02T03:04:05.123Z'), raw: new Binary(Buffer.from('deadbeef', 'hex')), crew: { director: 'Scott' } },
    { title: 'Heat', year: 1995, rating: 8.3 },
    { title: 'Up', year: 2009 },
  ]);
});
afterAll(async () => {
  await env?.close();
});

describe('POST /execute_mongo', () => {
  it('answers a page of documents as rows', async () => {
    const res = await executeMongo(env, { collection: films, filter: { year: { $gte: 1980 } }, projection: { _id: 0, title: 1, year: 1 }, sort: { year: -1 } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('x-has-more')).toBe('false');
    expect(await res.json()).toEqual([{ title: 'Up', year: 2009 }, { title: 'Heat', year: 1995 }]);
  });

  it('writes values exactly', async () => {
    const res = await executeMongo(env, { collection: films, filter: { title: 'Alien' } }, { format: 'ndjson', stream: 'true' });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    console.log(text);
  });
});
