import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DuckdbDriver } from '../../origin/drivers/duckdb.ts';
import { pipesOpen } from '../../origin/drivers/duckdb-pipe.ts';
import { request } from './pushdown.ts';

/** Where the system cannot make named pipes (no `mkfifo`), DuckDB exports fetch the rendered lines instead. */

let dir: string;
let driver: DuckdbDriver;
const path = process.env.PATH;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-no-pipes-'));
  const file = join(dir, 'fixture.duckdb');
  const instance = await DuckDBInstance.create(file);
  const connection = await instance.connect();
  await connection.run('CREATE TABLE numbers AS SELECT i FROM range(3) t(i)');
  connection.closeSync();
  instance.closeSync();
  driver = new DuckdbDriver({ type: 'duckdb', database: file, options: {} }, { poolSize: 2, poolIdleTimeoutMs: 60_000, allowWrites: false });
  // This test file runs in its own process: the first export finds no mkfifo and remembers it.
  process.env.PATH = dir;
});

afterAll(async () => {
  process.env.PATH = path;
  await driver?.close();
  await rm(dir, { recursive: true, force: true });
});

it('a READ_ONLY file without mkfifo streams the same lines, no pipe taken', async () => {
  const lines = await driver.streamLines!(request('select i from numbers order by i'), 'csv');
  expect(pipesOpen()).toBe(0);
  const parts: Buffer[] = [];
  for await (const chunk of lines!.batches) parts.push(Buffer.from(chunk));
  await lines!.close();
  expect(Buffer.concat(parts).toString()).toBe('0\r\n1\r\n2\r\n');
});
