import { copyFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckdbDriver } from '../../origin/drivers/duckdb.ts';
import { memoryBytes, pipesOpen } from '../../origin/drivers/duckdb-pipe.ts';
import { SluiceError } from '../../origin/errors.ts';
import { READ_ONLY_ENV, duckFixture, request } from './pushdown.ts';

/**
 * DuckDB writing an export into its own pipe (duckdb-pipe.ts): what happens
 * around the bytes. Their equality with the JS serializers' is proven in
 * duckdb.test.ts.
 */

let dir: string;
let driver: DuckdbDriver;
let withFile: DuckdbDriver;

beforeAll(async () => {
  let file: string;
  ({ dir, file } = await duckFixture('sluice-pipe-', ['CREATE TABLE numbers AS SELECT i FROM range(10) t(i)']));
  const env = READ_ONLY_ENV;
  driver = new DuckdbDriver({ type: 'duckdb', database: file, options: {} }, env);
  await writeFile(join(dir, 'extra.csv'), 'a,b\n1,2\n');
  await copyFile(file, join(dir, 'other.duckdb'));
  withFile = new DuckdbDriver({ type: 'duckdb', database: join(dir, 'other.duckdb'), options: { files: { extra: join(dir, 'extra.csv') } } }, env);
});

afterAll(async () => {
  await driver?.close();
  await withFile?.close();
  await rm(dir, { recursive: true, force: true });
});

async function text(chunks: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts).toString('utf8');
}

/** The folders exports keep their pipes in, while they run. */
async function pipesLeft(): Promise<string[]> {
  return (await readdir(tmpdir())).filter((name) => name.startsWith('sluice-export-'));
}

describe('DuckDB exports through a pipe', () => {
  it('are taken for a READ_ONLY file, and leave no pipe behind', async () => {
    const before = await pipesLeft();
    const lines = await driver.streamLines!(request('select i from numbers order by i'), 'csv');
    expect(pipesOpen()).toBe(1);
    expect(await text(lines!.batches)).toBe(Array.from({ length: 10 }, (_, i) => `${i}\r\n`).join(''));
    await lines!.close();
    expect(pipesOpen()).toBe(0);
    expect(await pipesLeft()).toEqual(before);
  });

  it('start over with the connection\'s memory when a statement needs more than a stream does', async () => {
    const sql = `select i, 'row ' || i as s from range(2000000) t(i) order by i desc`;
    const lines = await driver.streamLines!(request(sql), 'tsv');
    const body = await text(lines!.batches);
    await lines!.close();
    expect(body.startsWith('1999999\trow 1999999\n')).toBe(true);
    expect(body.split('\n').length - 1).toBe(2_000_000);
  });

  it('stop a long export closed after its first chunk', async () => {
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

  it('free a statement that opened its own pipe for reading once the client goes', async () => {
    // The export instance allows the configured file and its pipe (in tmpdir()/sluice-export-*, so
    // sorted first); on the shared instance the same expression names the file, so the statement
    // passes the plan step there.
    const abort = new AbortController();
    const paths = `list_filter(current_setting('allowed_paths'), p -> p like '%/extra.csv' or p like '%/sluice-export-%')`;
    const sql = `select * from read_csv(list_sort(${paths})[1])`;
    const started = withFile.streamLines!({ ...request(sql), signal: abort.signal }, 'csv');
    setTimeout(() => abort.abort(), 300);
    await expect(started).rejects.toMatchObject({ extras: { detail: 'cancelled' } });
    expect(pipesOpen()).toBe(0);
  });

  it('leave further exports to the line path while every pipe is taken', async () => {
    const held = [];
    const pipes = Math.max(1, Math.floor((Number(process.env.UV_THREADPOOL_SIZE) || 4) / 2));
    for (let i = 0; i <= pipes + 1; i++) held.push(await driver.streamLines!(request('select i from range(100000000) t(i)'), 'csv'));
    expect(pipesOpen()).toBe(pipes);
    for (const lines of held) await lines!.close();
    expect(pipesOpen()).toBe(0);
  });
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
