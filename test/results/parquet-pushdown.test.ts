import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { unique } from '../harness/unique.ts';
import { duckFixture } from '../streaming-pushdown/pushdown.ts';
import { duckQuery, duckTypes } from '../unit/formats/duck.ts';

/**
 * Parquet results of at least 100,000 rows per chunk from a READ_ONLY DuckDB
 * file are written by DuckDB itself (ADR 0030): the chunks hold the rows, in
 * order, and the types of the same result written by the JS writer
 * (SLUICE_STREAM_PUSHDOWN=0), each ending where a row group ends; a value
 * the push-down cannot type as the JS writer does sends the result back to
 * the JS writer, whose chunks are exact.
 */

const ROWS = 230_000;
const SETUP = [
  `CREATE TABLE edge AS SELECT i AS id, i * 30744573456182 AS big, ((i % 100000) / 100)::DECIMAL(12,2) AS price,
     CASE WHEN i % 7 = 0 THEN NULL ELSE 'név ' || i || ' 中 😀' END AS name, i % 3 = 0 AS flag, i / 7 AS ratio,
     DATE '1969-12-25' + (i % 800)::INTEGER AS day, TIMESTAMPTZ '2024-04-06 12:00:00+00' + to_microseconds(i * 60000007) AS at_utc
   FROM range(${ROWS}) t(i)`,
];
const COLUMNS = 'id, big, price, name, flag, ratio, day, at_utc';

let fixture: { dir: string; file: string };
let downloads: string;
let pushed: Origin;
let plain: Origin;

beforeAll(async () => {
  [fixture, downloads] = await Promise.all([duckFixture('sluice-results-pushdown-', SETUP), mkdtemp(join(tmpdir(), 'sluice-results-chunks-'))]);
  [pushed, plain] = await Promise.all([startOrigin(), startOrigin({ env: { SLUICE_STREAM_PUSHDOWN: '0' } })]);
});

afterAll(async () => {
  await Promise.all([pushed?.stop(), plain?.stop()]);
  await rm(fixture?.dir ?? '', { recursive: true, force: true });
  await rm(downloads ?? '', { recursive: true, force: true });
});

/** A parquet result of `sql` on a new connection to the fixture's file, its chunks downloaded through their links. */
async function resultOf(origin: Origin, sql: string, chunkRows = 100_000): Promise<{ body: any; files: string[] }> {
  const connection = unique('duck');
  expect((await origin.call('POST', '/api/v1/connections', { name: connection, db: 'duckdb', database: fixture.file })).status).toBe(201);
  const made = await origin.call('POST', '/results', { sql, connection_name: connection, format: 'parquet', chunk_rows: chunkRows, wait: 60 });
  expect(made.body.state, JSON.stringify(made.body)).toBe('succeeded');
  const files: string[] = [];
  for (const chunk of made.body.chunks) {
    const file = join(downloads, `${made.body.id}-${chunk.index}.parquet`);
    const res = await fetch(chunk.url);
    expect(res.status).toBe(200);
    await writeFile(file, Buffer.from(await res.arrayBuffer()));
    files.push(file);
  }
  return { body: made.body, files };
}

const list = (files: string[]) => `[${files.map((file) => `'${file}'`).join(', ')}]`;
/** One digest of every row of the files, in file order then row order. */
async function digest(files: string[]): Promise<string> {
  const { rows } = await duckQuery(
    `SELECT md5(string_agg(md5(row(${COLUMNS})::VARCHAR), '' ORDER BY list_position(${list(files)}, filename), file_row_number)) FROM read_parquet(${list(files)}, filename = true, file_row_number = true)`,
  );
  return String(rows[0]![0]);
}
const createdBy = async (file: string) => String((await duckQuery(`SELECT created_by FROM parquet_file_metadata('${file}')`)).rows[0]?.[0]);
const rowsIn = async (file: string) => Number((await duckQuery(`SELECT count(*) FROM read_parquet('${file}')`)).rows[0]![0]);

describe('a parquet result DuckDB writes itself', () => {
  it('holds the rows in order and the types of the JS writer\'s result, in chunks that end where a row group does', async () => {
    const sql = `SELECT ${COLUMNS} FROM edge WHERE id % 5 <> 1 ORDER BY id DESC`;
    const [duck, js] = await Promise.all([resultOf(pushed, sql), resultOf(plain, sql)]);
    const expected = (ROWS * 4) / 5;
    expect(duck.body.rows).toBe(expected);
    expect(js.body.chunks.map((chunk: any) => chunk.rows)).toEqual([100_000, 84_000]);
    expect(duck.body.chunks).toHaveLength(2);
    const first = duck.body.chunks[0].rows;
    // Whole row groups of the JS writer's size in whole vectors (8,192 rows for 8 columns): at least the 100,000 asked, less than a group more.
    expect(first).toBeGreaterThanOrEqual(100_000);
    expect(first).toBeLessThan(100_000 + 8_192);
    expect(duck.body.chunks[1].rows).toBe(expected - first);
    for (const [at, file] of duck.files.entries()) {
      expect(await createdBy(file)).toMatch(/duckdb/i);
      expect(await rowsIn(file)).toBe(duck.body.chunks[at].rows);
      expect(duck.body.chunks[at].bytes).toBe((await stat(file)).size);
    }
    expect(await createdBy(js.files[0]!)).not.toMatch(/duckdb/i);
    expect(await digest(duck.files)).toBe(await digest(js.files));
    expect(await duckTypes(duck.files[0]!)).toEqual(await duckTypes(js.files[0]!));
    // Nothing but the chunks is left in the result's folder.
    expect((await readdir(join(pushed.dataDir, 'results', duck.body.id))).sort()).toEqual(['0.parquet', '1.parquet']);
  });

  it('is one empty chunk when there are no rows', async () => {
    const { body, files } = await resultOf(pushed, `SELECT ${COLUMNS} FROM edge WHERE id < 0`);
    expect(body).toMatchObject({ rows: 0, chunks: [{ index: 0, rows: 0 }] });
    expect(await rowsIn(files[0]!)).toBe(0);
  });

  it('goes back to the JS writer, chunks exact, when a value is one it would type otherwise', async () => {
    const { body, files } = await resultOf(pushed, 'SELECT id, CASE WHEN id = 150000 THEN 170141183460469231731687303715884105727::HUGEINT ELSE id::HUGEINT END AS huge FROM edge ORDER BY id');
    expect(body.chunks.map((chunk: any) => chunk.rows)).toEqual([100_000, 100_000, 30_000]);
    expect(await createdBy(files[0]!)).not.toMatch(/duckdb/i);
    expect(existsSync(join(pushed.dataDir, 'results', body.id, '.parts'))).toBe(false);
  });

  it('keeps chunks under 100,000 rows on the JS writer, each exact', async () => {
    const { body, files } = await resultOf(pushed, `SELECT ${COLUMNS} FROM edge ORDER BY id LIMIT 25000`, 10_000);
    expect(body.chunks.map((chunk: any) => chunk.rows)).toEqual([10_000, 10_000, 5_000]);
    expect(await createdBy(files[0]!)).not.toMatch(/duckdb/i);
  });
});
