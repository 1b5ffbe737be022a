import { copyFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { DuckdbDriver } from '../../origin/drivers/duckdb/driver.ts';
import { memoryBytes, pipesOpen } from '../../origin/drivers/duckdb/pipe.ts';
import { plansAsStream } from '../../origin/drivers/duckdb/scan-tasks.ts';
import { SluiceError } from '../../origin/errors.ts';
import { READ_ONLY_ENV, duckFixture, firstDifference, jsBytes, pushedBytes, request } from './pushdown.ts';

/**
 * DuckDB writing a stream into its own pipe (duckdb-pipe.ts): what happens
 * around the bytes. Their equality with the JS serializers' is proven in
 * duckdb.test.ts.
 */

let dir: string;
let driver: DuckdbDriver;
let twoThreads: DuckdbDriver;

/** Five row groups of 122,880 rows: more scan tasks than threads whatever their size. */
const WIDE_ROWS = 600_000;

beforeAll(async () => {
  let file: string;
  ({ dir, file } = await duckFixture('sluice-pipe-', [
    'CREATE TABLE numbers AS SELECT i FROM range(10) t(i)',
    `CREATE TABLE wide AS SELECT i, 'row ' || i AS s, i / 7 AS d FROM range(${WIDE_ROWS}) t(i)`,
  ]));
  const env = READ_ONLY_ENV;
  driver = new DuckdbDriver({ type: 'duckdb', database: file, options: {} }, env);
  await writeFile(join(dir, 'extra.csv'), 'a,b\n1,2\n');
  await copyFile(file, join(dir, 'other.duckdb'));
  await copyFile(file, join(dir, 'threads.duckdb'));
  twoThreads = new DuckdbDriver({ type: 'duckdb', database: join(dir, 'threads.duckdb'), options: { threads: 2 } }, env);
});

afterAll(async () => {
  await driver?.close();
  await twoThreads?.close();
  await rm(dir, { recursive: true, force: true });
});

async function text(chunks: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts).toString('utf8');
}

/** The folders streams keep their pipes in, while they run. */
async function pipesLeft(): Promise<string[]> {
  return (await readdir(tmpdir())).filter((name) => name.startsWith('sluice-stream-'));
}

describe('DuckDB streams through a pipe', () => {
  it('are taken for a READ_ONLY file, and leave no pipe behind', async () => {
    const before = await pipesLeft();
    const lines = await driver.streamLines!(request('select i from numbers order by i'), 'csv');
    expect(pipesOpen()).toBe(1);
    expect(await text(lines!.batches)).toBe(Array.from({ length: 10 }, (_, i) => `${i}\r\n`).join(''));
    await lines!.close();
    expect(pipesOpen()).toBe(0);
    expect(await pipesLeft()).toEqual(before);
  });

  it('run on `stream_threads` threads, lookups on `threads`', async () => {
    const options = { threads: 1, stream_threads: 3 };
    const threads = new DuckdbDriver({ type: 'duckdb', database: join(dir, 'threads.duckdb'), options }, READ_ONLY_ENV);
    try {
      const sql = "select current_setting('threads') as n";
      expect(await pushedBytes(threads, sql, 'csv')).toBe('n\r\n3\r\n');
      expect(await jsBytes(threads, sql, 'csv')).toBe('n\r\n1\r\n');
    } finally {
      await threads.close();
    }
  });

  it('start over with the connection\'s memory when a statement needs more than a stream does', async () => {
    const sql = `select i, 'row ' || i as s from range(2000000) t(i) order by i desc`;
    const lines = await driver.streamLines!(request(sql), 'tsv');
    const body = await text(lines!.batches);
    await lines!.close();
    expect(body.startsWith('1999999\trow 1999999\n')).toBe(true);
    expect(body.split('\n').length - 1).toBe(2_000_000);
  });

  it('stop a long stream closed after its first chunk', async () => {
    const lines = await driver.streamLines!(request('select i from range(1000000000) t(i)'), 'ndjson');
    const iterator = lines!.batches[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false);
    await lines!.close();
    expect(pipesOpen()).toBe(0);
  });

  it('fail with the database\'s error before any byte, and after some', async () => {
    const refusal = (detail: RegExp) => ({ code: 'query_failed', extras: { detail: expect.stringMatching(detail) } });
    const early = driver.streamLines!(request(`select case when i = 0 then error('refused early') else i end as x from range(3) t(i)`), 'csv');
    await expect(early).rejects.toBeInstanceOf(SluiceError);
    await expect(early).rejects.toMatchObject(refusal(/refused early/));
    const lines = await driver.streamLines!(request(`select case when i = 3000000 then error('refused late') else i end as x from range(4000000) t(i)`), 'csv');
    await expect(text(lines!.batches)).rejects.toMatchObject(refusal(/refused late/));
    expect(pipesOpen()).toBe(0);
  });

  // With more than one thread the stream's plan is read first: on the stream's instance that read waited for ever.
  it.each([1, 2])('free a statement that opened its own pipe for reading once the client goes (%i stream threads)', async (threads) => {
    const options = { files: { extra: join(dir, 'extra.csv') }, stream_threads: threads };
    const withFile = new DuckdbDriver({ type: 'duckdb', database: join(dir, 'other.duckdb'), options }, READ_ONLY_ENV);
    // The stream instance allows the configured file and its pipe (in tmpdir()/sluice-stream-*): the
    // expression names the pipe there; on the shared instance it names the file, so the statement
    // passes the plan step there.
    const abort = new AbortController();
    const allowed = (pattern: string) => `list_filter(current_setting('allowed_paths'), p -> p like '${pattern}')[1]`;
    const sql = `select * from read_csv(coalesce(${allowed('%/sluice-stream-%')}, ${allowed('%/extra.csv')}))`;
    const started = withFile.streamLines!({ ...request(sql), signal: abort.signal }, 'csv');
    setTimeout(() => abort.abort(), 300);
    try {
      await expect(started).rejects.toMatchObject({ extras: { detail: 'cancelled' } });
      expect(pipesOpen()).toBe(0);
    } finally {
      await withFile.close();
    }
  });

  it('leave further streams to the line path while every pipe is taken', async () => {
    const held = [];
    const pipes = Math.max(1, Math.floor((Number(process.env.UV_THREADPOOL_SIZE) || 4) / 2));
    for (let i = 0; i <= pipes + 1; i++) held.push(await driver.streamLines!(request('select i from range(100000000) t(i)'), 'csv'));
    expect(pipesOpen()).toBe(pipes);
    for (const lines of held) await lines!.close();
    expect(pipesOpen()).toBe(0);
  });
});

describe('DuckDB streams through a pipe with two threads', () => {
  async function exported(sql: string): Promise<string> {
    const lines = await twoThreads.streamLines!(request(sql), 'csv');
    expect(pipesOpen()).toBe(1);
    try {
      return await text(lines!.batches);
    } finally {
      await lines!.close();
    }
  }

  it('keep the table\'s row order, byte for byte the JS serializer\'s', async () => {
    const sql = 'select * from wide';
    const body = await exported(sql);
    const rows = body.split('\r\n');
    expect(rows.length - 1).toBe(WIDE_ROWS);
    expect(rows.slice(0, WIDE_ROWS).every((row, i) => row.startsWith(`${i},row ${i},`))).toBe(true);
    const js = await jsBytes(twoThreads, sql, 'csv');
    // The JS serializer's bytes after its header line.
    expect(firstDifference(js.slice(js.indexOf('\n') + 1), body)).toBeNull();
  });

  it('keep a filter\'s order and an ORDER BY\'s', async () => {
    const even = (await exported('select i from wide where i % 2 = 0')).split('\r\n');
    expect(even.slice(0, -1).map(Number)).toEqual(Array.from({ length: WIDE_ROWS / 2 }, (_, k) => 2 * k));
    const descending = (await exported('select i from wide order by i desc')).split('\r\n');
    expect(descending.slice(0, -1).map(Number)).toEqual(Array.from({ length: WIDE_ROWS }, (_, k) => WIDE_ROWS - 1 - k));
  });
});

describe('vector-sized scan tasks', () => {
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;

  beforeAll(async () => {
    instance = await DuckDBInstance.create(join(dir, 'fixture.duckdb'), { access_mode: 'READ_ONLY', threads: '2' });
    connection = await instance.connect();
  });

  afterAll(() => {
    connection?.closeSync();
    instance?.closeSync();
  });

  it.each([
    ['select * from wide', true],
    ['select s from wide where i > 10', true],
    ['select i + 1 as j from wide', true],
    ['select * from wide order by i', false],
    ['select count(*) from wide', false],
    ['select * from wide limit 5', false],
    ['select * from wide a join numbers b on a.i = b.i', false],
    ['select 1', false],
    ['not a statement', false],
  ])('%s: %s', async (sql, fine) => expect(await plansAsStream(connection, sql)).toBe(fine));
});

describe('memory_limit sizes', () => {
  it.each([
    ['16MB', 16e6],
    ['512MB', 512e6],
    ['1GiB', 2 ** 30],
    ['1.5 GB', 1.5e9],
    ['80%', Infinity],
  ])('%s', (text, bytes) => expect(memoryBytes(text)).toBe(bytes));
});
