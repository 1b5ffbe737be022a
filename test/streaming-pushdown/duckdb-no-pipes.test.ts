import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DuckdbDriver } from '../../origin/drivers/duckdb/driver.ts';
import { pipesOpen } from '../../origin/drivers/duckdb/pipe.ts';
import { READ_ONLY_ENV, duckFixture, request } from './pushdown.ts';

/** Where the system cannot make named pipes (no `mkfifo`), DuckDB streams fetch the rendered lines instead. */

let dir: string;
let driver: DuckdbDriver;
const path = process.env.PATH;

beforeAll(async () => {
  let file: string;
  ({ dir, file } = await duckFixture('sluice-no-pipes-', ['CREATE TABLE numbers AS SELECT i FROM range(3) t(i)']));
  driver = new DuckdbDriver({ type: 'duckdb', database: file, options: {} }, READ_ONLY_ENV);
  // This test file runs in its own process: the first stream finds no mkfifo and remembers it.
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
