import { readdir, rm, stat } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { duckFixture } from '../streaming-pushdown/pushdown.ts';
import { duckQuery, duckTypes } from '../unit/formats/duck.ts';
import { created, exportRoot, localDestination, newExport, runExport } from './fixture.ts';
import { unique } from '../harness/unique.ts';

/**
 * A parquet export from a READ_ONLY DuckDB file is written by DuckDB itself
 * (ADR 0021), straight into the destination's temporary file: the file has
 * the rows and types of the same export written by the JS writer
 * (SLUICE_STREAM_PUSHDOWN=0), the run's `rows` and `bytes` are exact, and a
 * run that times out leaves nothing in the folder.
 */

let fixture: { dir: string; file: string };
let pushed: Origin;
let plain: Origin;
let root: string;

const SETUP = [
  `CREATE TABLE edge AS SELECT i AS id, i * 307445734561825 AS big, ((i % 100000) / 100)::DECIMAL(12,2) AS price,
     CASE WHEN i % 7 = 0 THEN NULL ELSE 'név ' || i || ' 中 😀' END AS name, i % 3 = 0 AS flag, i / 7 AS ratio,
     DATE '1969-12-25' + (i % 800)::INTEGER AS day, TIMESTAMP '2024-04-06 12:00:00' + to_microseconds(i * 60000007) AS local_at,
     TIMESTAMPTZ '2024-04-06 12:00:00+00' + to_microseconds(i * 60000007) AS at_utc, ('\\x00\\xFF' || i::VARCHAR)::BLOB AS raw
   FROM range(30000) t(i)`,
];

async function exportOf(origin: Origin, query: string, fields: Record<string, unknown> = {}): Promise<string> {
  const connection = unique('duck');
  await created(origin, '/api/v1/connections', { name: connection, db: 'duckdb', database: fixture.file });
  const name = unique('xq');
  await created(origin, '/api/v1/queries', { name, connection_name: connection, sql: query, publish: true });
  return newExport(origin, { query: name, format: 'parquet', destination: await localDestination(origin, root), ...fields });
}

const createdBy = async (path: string) => String((await duckQuery(`SELECT created_by FROM parquet_file_metadata('${path}')`)).rows[0]?.[0]);

beforeAll(async () => {
  fixture = await duckFixture('sluice-export-pushdown-', SETUP);
  root = await exportRoot();
  [pushed, plain] = await Promise.all([
    startOrigin({ env: { SLUICE_EXPORT_DIRS: root } }),
    startOrigin({ env: { SLUICE_EXPORT_DIRS: root, SLUICE_STREAM_PUSHDOWN: '0' } }),
  ]);
});

afterAll(async () => {
  await Promise.all([pushed?.stop(), plain?.stop()]);
  await rm(fixture?.dir ?? '', { recursive: true, force: true });
  await rm(root ?? '', { recursive: true, force: true });
});

describe('a parquet export DuckDB writes itself', () => {
  it('has the rows, types and exact size of the JS writer\'s export of the same query', async () => {
    const sql = 'SELECT * FROM edge ORDER BY id DESC';
    const [byDuck, byJs] = await Promise.all([exportOf(pushed, sql), exportOf(plain, sql)]);
    const duckRun = await runExport(pushed, byDuck);
    const jsRun = await runExport(plain, byJs);
    expect(duckRun.status, JSON.stringify(duckRun.body)).toBe(201);
    expect(jsRun.status, JSON.stringify(jsRun.body)).toBe(201);
    // The path each took: DuckDB names itself as the writer, the JS writer says `sluice`.
    expect(await createdBy(duckRun.body.object)).toMatch(/duckdb/i);
    expect(await createdBy(jsRun.body.object)).toBe('sluice');
    expect(duckRun.body.rows).toBe(30_000);
    expect(jsRun.body.rows).toBe(30_000);
    const { size } = await stat(duckRun.body.object);
    expect(duckRun.body.bytes).toBe(size);
    expect(await duckTypes(duckRun.body.object)).toEqual(await duckTypes(jsRun.body.object));
    const rows = async (path: string) => (await duckQuery(`SELECT * FROM read_parquet('${path}')`)).rows;
    expect(await rows(duckRun.body.object)).toEqual(await rows(jsRun.body.object));
  });

  it('writes no object for an empty result, and nothing is left in the folder', async () => {
    const name = await exportOf(pushed, 'SELECT * FROM edge WHERE id < 0', { path: 'empty/{run}' });
    const run = await runExport(pushed, name);
    expect(run.status, JSON.stringify(run.body)).toBe(201);
    expect(run.body).toMatchObject({ object: null, rows: 0, bytes: 0 });
    expect(await readdir(root)).not.toContain('empty');
  });

  it('cancels a run past its timeout, leaving no temporary file behind', async () => {
    const name = await exportOf(pushed, 'SELECT a.id, b.name FROM edge a, edge b', { timeout: 1, path: 'slow/{run}' });
    const run = await runExport(pushed, name);
    expect(run.status, JSON.stringify(run.body)).toBe(504);
    expect(run.body.code).toBe('timeout');
    expect(await readdir(root)).not.toContain('slow');
  });
});
