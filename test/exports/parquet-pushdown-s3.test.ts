import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type TestS3, startS3 } from '../harness/s3.ts';
import { duckFixture } from '../streaming-pushdown/pushdown.ts';
import { duckQuery, duckTypes } from '../unit/formats/duck.ts';
import { created, newExport, runExport, s3Destination } from './fixture.ts';
import { unique } from '../harness/unique.ts';

/**
 * A parquet export from a READ_ONLY DuckDB file into a bucket: DuckDB writes
 * the file into the origin's private temporary folder, which is then
 * uploaded in parts and removed (ADR 0021). The object has the rows and
 * types of the same export written by the JS writer
 * (SLUICE_STREAM_PUSHDOWN=0), the run's `bytes` are the stored size, and a
 * cut upload leaves no object, no stored part and no temporary file.
 * The harness's cut fails every later request too, the abort included, so
 * the cut upload itself stays open (as in test/object-storage/s3.test.ts).
 */

let fixture: { dir: string; file: string };
let s3: TestS3;
let pushed: Origin;
let plain: Origin;
/** Each origin's TMPDIR, where its `sluice-parquet-*` folders go. */
let pushedTmp: string;
let plainTmp: string;
let downloads: string;

const SETUP = [
  `CREATE TABLE edge AS SELECT i AS id, i * 307445734561825 AS big, ((i % 100000) / 100)::DECIMAL(12,2) AS price,
     CASE WHEN i % 7 = 0 THEN NULL ELSE 'név ' || i || ' 中 😀' END AS name, i % 3 = 0 AS flag, i / 7 AS ratio,
     DATE '1969-12-25' + (i % 800)::INTEGER AS day, TIMESTAMP '2024-04-06 12:00:00' + to_microseconds(i * 60000007) AS local_at,
     TIMESTAMPTZ '2024-04-06 12:00:00+00' + to_microseconds(i * 60000007) AS at_utc, ('\\x00\\xFF' || i::VARCHAR)::BLOB AS raw
   FROM range(30000) t(i)`,
  // Incompressible text: its parquet file (~20 MiB) is uploaded in several 8 MiB parts.
  `CREATE TABLE wide AS SELECT i AS id, md5(i::VARCHAR) || md5((i + 1)::VARCHAR) AS pad FROM range(300000) t(i)`,
];

const key = (object: string) => object.replace(/^s3:\/\/exports\//, '');

async function exportOf(origin: Origin, query: string, prefix: string): Promise<string> {
  const connection = unique('duck');
  await created(origin, '/api/v1/connections', { name: connection, db: 'duckdb', database: fixture.file });
  const name = unique('xq');
  await created(origin, '/api/v1/queries', { name, connection_name: connection, sql: query, publish: true });
  return newExport(origin, { query: name, format: 'parquet', destination: await s3Destination(origin, s3, prefix) });
}

/** The object, stored in a local file DuckDB reads. */
async function download(object: string): Promise<{ path: string; size: number }> {
  const bytes = await s3.getObject('exports', key(object));
  const path = join(downloads, `${unique('obj')}.parquet`);
  await writeFile(path, bytes);
  return { path, size: bytes.length };
}

const leftovers = async (folder: string) => (await readdir(folder)).filter((entry) => entry.startsWith('sluice-parquet-'));
const createdBy = async (path: string) => String((await duckQuery(`SELECT created_by FROM parquet_file_metadata('${path}')`)).rows[0]?.[0]);
const rows = async (path: string) => (await duckQuery(`SELECT * FROM read_parquet('${path}')`)).rows;

beforeAll(async () => {
  fixture = await duckFixture('sluice-export-pushdown-s3-', SETUP);
  [s3, pushedTmp, plainTmp, downloads] = await Promise.all([
    startS3(),
    mkdtemp(join(tmpdir(), 'sluice-tmp-pushed-')),
    mkdtemp(join(tmpdir(), 'sluice-tmp-plain-')),
    mkdtemp(join(tmpdir(), 'sluice-downloads-')),
  ]);
  [pushed, plain] = await Promise.all([
    startOrigin({ env: { TMPDIR: pushedTmp } }),
    startOrigin({ env: { TMPDIR: plainTmp, SLUICE_STREAM_PUSHDOWN: '0' } }),
  ]);
});

afterAll(async () => {
  await Promise.all([pushed?.stop(), plain?.stop()]);
  await s3?.stop();
  await Promise.all([fixture?.dir, pushedTmp, plainTmp, downloads].map((dir) => rm(dir ?? '', { recursive: true, force: true })));
});

describe('a parquet export to S3 that DuckDB writes itself', () => {
  it("stores the rows and types of the JS writer's object, its size the run's bytes", async () => {
    const sql = 'SELECT * FROM edge ORDER BY id DESC';
    const [byDuck, byJs] = await Promise.all([exportOf(pushed, sql, 'duck'), exportOf(plain, sql, 'js')]);
    const duckRun = await runExport(pushed, byDuck);
    const jsRun = await runExport(plain, byJs);
    expect(duckRun.status, JSON.stringify(duckRun.body)).toBe(201);
    expect(jsRun.status, JSON.stringify(jsRun.body)).toBe(201);
    expect(duckRun.body.object).toMatch(/^s3:\/\/exports\/duck\//);
    const [duckFile, jsFile] = await Promise.all([download(duckRun.body.object), download(jsRun.body.object)]);
    // The path each took: DuckDB names itself as the writer, the JS writer says `sluice`.
    expect(await createdBy(duckFile.path)).toMatch(/duckdb/i);
    expect(await createdBy(jsFile.path)).toBe('sluice');
    expect(duckRun.body.rows).toBe(30_000);
    expect(jsRun.body.rows).toBe(30_000);
    expect(duckRun.body.bytes).toBe(duckFile.size);
    expect(jsRun.body.bytes).toBe(jsFile.size);
    expect(await duckTypes(duckFile.path)).toEqual(await duckTypes(jsFile.path));
    expect(await rows(duckFile.path)).toEqual(await rows(jsFile.path));
    expect(await leftovers(pushedTmp)).toEqual([]);
    expect(await s3.listMultipartUploads('exports')).toEqual([]);
  });

  it('leaves no object, no stored part and no temporary file when the store cuts the upload, and the next run delivers', async () => {
    const name = await exportOf(pushed, 'SELECT * FROM wide ORDER BY id', 'cut');
    // The file is larger than one 8 MiB part, so it goes as a multipart upload; the cut falls before any part is complete.
    s3.failAfterBytes(2 * 2 ** 20, 'reset');
    let failed;
    try {
      failed = await runExport(pushed, name);
    } finally {
      s3.failAfterBytes(null);
    }
    expect(failed.status, JSON.stringify(failed.body)).toBe(502);
    expect(failed.body.code).toBe('connection_failed');
    expect(JSON.stringify(failed.body)).not.toContain(s3.secretAccessKey);
    expect(await s3.listObjects('exports', 'cut/')).toEqual([]);
    // The store refused the abort too (it fails every request once cut): the upload stays open, holding no part.
    expect((await s3.listMultipartUploads('exports', 'cut/')).map((upload) => upload.parts)).toEqual([0]);
    expect(await leftovers(pushedTmp)).toEqual([]);

    const run = await runExport(pushed, name);
    expect(run.status, JSON.stringify(run.body)).toBe(201);
    expect(run.body.rows).toBe(300_000);
    const file = await download(run.body.object);
    expect(run.body.bytes).toBe(file.size);
    expect(file.size).toBeGreaterThan(8 * 2 ** 20);
    expect(await createdBy(file.path)).toMatch(/duckdb/i);
    expect((await duckQuery(`SELECT count(*)::INTEGER, count(DISTINCT pad)::INTEGER FROM read_parquet('${file.path}')`)).rows).toEqual([[300_000, 300_000]]);
    expect(await leftovers(pushedTmp)).toEqual([]);
  });
});
