import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { Long } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MongoEnv, executeMongo, seed, startMongoEnv } from './fixture.ts';

/**
 * 200,000 documents streamed in each format the spec gives document
 * databases rules for: NDJSON whole documents, CSV columns from the first
 * 1,000 documents (a field first seen at document 1,500 is dropped and
 * counted in the run's history entry), parquet with every field a column,
 * read back by DuckDB. A client that leaves mid-stream closes the server's
 * cursor.
 */

const COUNT = 200_000;
const LATE_AT = 1_500;

let env: MongoEnv;
let collection: string;
let dir: string;

beforeAll(async () => {
  env = await startMongoEnv();
  dir = await mkdtemp(join(tmpdir(), 'sluice-mongo-streams-'));
  const documents = Array.from({ length: COUNT }, (_, k) => {
    const i = k + 1;
    return i === LATE_AT ? { i, label: `doc ${i}`, late: 'only here', big: Long.fromString('9007199254740993') } : { i, label: `doc ${i}` };
  });
  collection = await seed(env, documents, 'stream');
}, 180_000);
afterAll(async () => {
  await env?.close();
  await rm(dir, { recursive: true, force: true });
});

async function history(requestId: string) {
  for (let attempt = 0; attempt < 50; attempt++) {
    const res = await env.origin.call('GET', '/api/v1/history?limit=50');
    const run = res.body.items.find((item: { request_id: string }) => item.request_id === requestId);
    if (run) return run;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no history entry for request ${requestId}`);
}

describe('document streams of 200,000 documents', () => {
  it('ndjson writes every document whole, its own fields only', async () => {
    const res = await executeMongo(env, { collection, sort: { i: 1 } }, { stream: 'true', format: 'ndjson' });
    expect(res.status).toBe(200);
    const lines = (await res.text()).trimEnd().split('\n');
    expect(lines).toHaveLength(COUNT);
    expect(Object.keys(JSON.parse(lines[0])).sort()).toEqual(['_id', 'i', 'label']);
    expect(lines[LATE_AT - 1]).toContain('"late":"only here","big":9007199254740993');
    expect(JSON.parse(lines[COUNT - 1]).i).toBe(COUNT);
    expect(await history(res.headers.get('x-request-id')!)).toMatchObject({ status: 'success', rows: COUNT, transport: 'stream' });
  });

  it('a stored result of the documents (POST /results with mongo) holds, chunk after chunk, exactly the ndjson stream', async () => {
    const made = await env.origin.call('POST', '/results', { mongo: { collection, sort: { i: 1 } }, connection_name: env.connection, chunk_rows: 75_000, wait: 60 }, env.headers);
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(made.body, JSON.stringify(made.body)).toMatchObject({ state: 'succeeded', rows: COUNT, query: null, connection: env.connection });
    expect(made.body.chunks.map((chunk: { rows: number }) => chunk.rows)).toEqual([75_000, 75_000, 50_000]);
    const parts = await Promise.all(made.body.chunks.map(async (chunk: { url: string }) => Buffer.from(await (await fetch(chunk.url)).arrayBuffer())));
    const streamed = await executeMongo(env, { collection, sort: { i: 1 } }, { stream: 'true', format: 'ndjson' });
    expect(Buffer.concat(parts).equals(Buffer.from(await streamed.arrayBuffer()))).toBe(true);
  });

  it('csv takes its columns from the first 1,000 documents; a field first seen later is dropped and counted in history', async () => {
    const res = await executeMongo(env, { collection, sort: { i: 1 } }, { stream: 'true', format: 'csv' });
    expect(res.status).toBe(200);
    const lines = (await res.text()).trimEnd().split('\r\n');
    expect(lines).toHaveLength(COUNT + 1);
    expect(lines[0].split(',').sort()).toEqual(['_id', 'i', 'label']);
    expect(lines.some((line) => line.includes('only here'))).toBe(false);
    const run = await history(res.headers.get('x-request-id')!);
    expect(run).toMatchObject({ status: 'success', rows: COUNT, format: 'csv', fields_dropped: 2 });
  });

  it('csv takes its columns from the projection when it names them', async () => {
    const res = await executeMongo(env, { collection, projection: { _id: 0, i: 1, late: 1 }, filter: { i: { $lte: 2000 } }, sort: { i: 1 } }, { stream: 'true', format: 'csv' });
    const lines = (await res.text()).trimEnd().split('\r\n');
    expect(lines[0]).toBe('i,late');
    expect(lines[LATE_AT]).toBe(`${LATE_AT},only here`);
    expect((await history(res.headers.get('x-request-id')!)).fields_dropped).toBe(0);
  });

  it('parquet makes every top-level field a column; DuckDB reads it back', async () => {
    const res = await executeMongo(env, { collection, sort: { i: 1 } }, { stream: 'true', format: 'parquet' });
    expect(res.status).toBe(200);
    const file = join(dir, 'docs.parquet');
    await writeFile(file, Buffer.from(await res.arrayBuffer()));
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      const reader = await connection.runAndReadAll(
        `SELECT count(*)::BIGINT AS n, sum(i)::BIGINT AS total, count(late)::BIGINT AS late, max(big)::VARCHAR AS big, min(label) AS first FROM read_parquet('${file}')`,
      );
      expect(reader.getRowObjectsJson()).toEqual([{ n: String(COUNT), total: String((COUNT * (COUNT + 1)) / 2), late: '1', big: '9007199254740993', first: 'doc 1' }]);
      const columns = await connection.runAndReadAll(`SELECT column_name FROM (DESCRIBE SELECT * FROM read_parquet('${file}')) ORDER BY column_name`);
      expect(columns.getRowObjectsJson().map((row) => row.column_name)).toEqual(['_id', 'big', 'i', 'label', 'late']);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });

  it('a client that leaves mid-stream closes the server cursor', async () => {
    const controller = new AbortController();
    const res = await env.origin.fetch('/execute_mongo?stream=true&format=ndjson', {
      method: 'POST',
      json: { connection_name: env.connection, collection },
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    expect(env.mongo.openCursors(collection)).toBe(1);
    controller.abort();
    await reader.read().catch(() => {});
    const deadline = Date.now() + 10_000;
    while (env.mongo.openCursors(collection) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(env.mongo.openCursors(collection), env.origin.logs.slice(-5).join('\n')).toBe(0);
    expect(env.mongo.commands.some((c) => c.name === 'killCursors' && c.collection === collection)).toBe(true);
  });
});
