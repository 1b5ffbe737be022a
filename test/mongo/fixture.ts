import type { Document } from 'mongodb';
import { expect } from 'vitest';
import { type TestMongo, startMongo } from '../harness/mongo.ts';
import type { Origin } from '../harness/origin.ts';
import { sharedOrigin } from '../harness/shared-origin.ts';
import { unique } from '../harness/unique.ts';

/** Shared by the document-query tests: an emulated MongoDB server, an origin, and a mongodb connection to it. */

export const ZONE = 'Europe/Paris';

export interface MongoEnv {
  mongo: TestMongo;
  origin: Origin;
  /** The name of a mongodb connection to the server's `test` database. */
  connection: string;
  /** The server key's header when the origin has one. */
  headers: Record<string, string>;
  close(): Promise<void>;
}

export async function startMongoEnv(env: Record<string, string> = {}): Promise<MongoEnv> {
  const mongo = await startMongo();
  const origin = await sharedOrigin({ TZ: ZONE, ...env });
  const connection = unique('mongo');
  const key: Record<string, string> = env.SLUICE_API_KEY ? { 'x-api-key': env.SLUICE_API_KEY } : {};
  const res = await origin.call('POST', '/api/v1/connections', { name: connection, db: 'mongodb', host: mongo.host, port: mongo.port, database: 'test' }, key);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return {
    mongo,
    origin,
    connection,
    headers: key,
    async close() {
      await origin.stop();
      await mongo.stop();
    },
  };
}

/** A new collection of the test database holding `documents`, in order. */
export async function seed(env: MongoEnv, documents: Document[], prefix = 'docs'): Promise<string> {
  const name = unique(prefix);
  const collection = env.mongo.client().db('test').collection(name);
  for (let i = 0; i < documents.length; i += 10_000) await collection.insertMany(documents.slice(i, i + 10_000));
  return name;
}

/** `POST /execute_mongo` with the query string `query`. */
export function executeMongo(env: MongoEnv, body: Record<string, unknown>, query: Record<string, string | number> = {}, headers: Record<string, string> = env.headers) {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  return env.origin.fetch(`/execute_mongo${search.size > 0 ? `?${search}` : ''}`, { method: 'POST', headers, json: { connection_name: env.connection, ...body } });
}
