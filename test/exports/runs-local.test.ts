import { readFile, readdir, writeFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { duckQuery, duckTypes } from '../unit/formats/duck.ts';
import { exportRoot, localDestination, newExport, runExport, savedQuery } from './fixture.ts';

/**
 * Runs into a local folder: each format's object is what `stream=true` of
 * the same query gives (csv and ndjson byte for byte; parquet the same rows
 * and types read back by DuckDB), written whole under the path template.
 */

let origin: Origin;
let root: string;
let destination: string;
let films: string;

const SQL = 'SELECT id, title, release_date, price, views FROM films WHERE id > :after ORDER BY id';

beforeAll(async () => {
  root = await exportRoot();
  origin = await startOrigin({ env: { SLUICE_EXPORT_DIRS: root } });
  destination = await localDestination(origin, root);
  films = await savedQuery(origin, { sql: SQL, parameters: { after: 'integer' } });
});

afterAll(async () => {
  await origin?.stop();
});

const streamed = async (format: string) => {
  const res = await origin.fetch(`/q/${films}?after=2&format=${format}&stream=true`);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
};

describe('an export run into a local folder', () => {
  it.each(['csv', 'ndjson'])('writes %s byte for byte as the stream of the same query', async (format) => {
    const name = await newExport(origin, { query: films, format, destination, params: { after: 2 } });
    const run = await runExport(origin, name);
    expect(run.status, JSON.stringify(run.body)).toBe(201);
    expect(run.body).toMatchObject({ rows: expect.any(Number), watermark: null });
    expect(run.body.rows).toBeGreaterThan(0);
    expect(isAbsolute(run.body.object)).toBe(true);
    expect(run.body.object.startsWith(`${root}/${name}/`)).toBe(true);
    expect(run.body.object.endsWith(`/${run.body.id}.${format}`)).toBe(true);
    const written = await readFile(run.body.object);
    expect(run.body.bytes).toBe(written.length);
    expect(written.equals(await streamed(format))).toBe(true);
  });

  it('writes parquet with the rows and types of the stream', async () => {
    const name = await newExport(origin, { query: films, format: 'parquet', destination, params: { after: 2 } });
    const run = await runExport(origin, name);
    expect(run.status, JSON.stringify(run.body)).toBe(201);
    const fromStream = join(root, 'stream.parquet');
    await writeFile(fromStream, await streamed('parquet'));
    expect(await duckTypes(run.body.object)).toEqual(await duckTypes(fromStream));
    const rows = async (path: string) => (await duckQuery(`SELECT * FROM read_parquet('${path}') ORDER BY id`)).rows;
    expect(await rows(run.body.object)).toEqual(await rows(fromStream));
    expect((await rows(run.body.object)).length).toBe(run.body.rows);
  });

  it('fills the path template and appends the extension', async () => {
    const name = await newExport(origin, { query: films, format: 'csv', destination, params: { after: 3 }, path: 'by-after/{after}/{name}-{run}' });
    const run = await runExport(origin, name);
    expect(run.body.object).toBe(join(root, 'by-after', '3', `${name}-${run.body.id}.csv`));
  });

  it('writes nothing for an empty result unless skip_empty is false', async () => {
    const skipped = await newExport(origin, { query: films, format: 'csv', destination, params: { after: 1_000_000 } });
    const none = await runExport(origin, skipped);
    expect(none.status).toBe(201);
    expect(none.body).toMatchObject({ object: null, rows: 0, bytes: 0 });
    expect(await readdir(root)).not.toContain(skipped);

    const kept = await newExport(origin, { query: films, format: 'csv', destination, params: { after: 1_000_000 }, skip_empty: false });
    const header = await runExport(origin, kept);
    expect(header.body.rows).toBe(0);
    expect((await readFile(header.body.object, 'utf8')).trim()).toBe('id,title,release_date,price,views');
  });

  it('lists its runs newest first, and records them in the run history as exports', async () => {
    const name = await newExport(origin, { query: films, format: 'ndjson', destination, params: { after: 0 } });
    const first = await runExport(origin, name);
    const second = await runExport(origin, name);
    const runs = await origin.call('GET', `/api/v1/exports/${name}/runs`);
    expect(runs.body.runs.map((run: { id: number }) => run.id)).toEqual([second.body.id, first.body.id]);
    expect(runs.body.runs[0]).toMatchObject({ status: 'success', destination, object: second.body.object, bytes: second.body.bytes, error: null });
    const history = await origin.call('GET', `/api/v1/history?query=${films}`);
    const exported = history.body.items.filter((item: { transport: string; export?: string }) => item.transport === 'export' && item.export === name);
    expect(exported).toHaveLength(2);
    expect(exported[0]).toMatchObject({ status: 'success', format: 'ndjson', destination, object: second.body.object, watermark: null });
  });

  it('fails a run whose query fails, says so in the alert, and clears it on the next success', async () => {
    const broken = await savedQuery(origin, { sql: "SELECT id, CAST(CASE WHEN id = :at THEN 'x' ELSE '1' END AS INTEGER) AS boom FROM films ORDER BY id", parameters: { at: 'integer' } });
    const name = await newExport(origin, { query: broken, format: 'csv', destination, params: { at: 3 } });
    const failed = await runExport(origin, name);
    expect(failed.status).toBeGreaterThanOrEqual(400);
    expect(failed.body).toHaveProperty('code');
    const alerts = await origin.call('GET', '/api/v1/alerts');
    expect(alerts.body.alerts).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'export_failing', subject: name })]));
    const runs = await origin.call('GET', `/api/v1/exports/${name}/runs`);
    expect(runs.body.runs[0]).toMatchObject({ status: 'error', object: null });
    expect(await readdir(root)).not.toContain(name);

    expect((await origin.call('PATCH', `/api/v1/exports/${name}`, { params: { at: 1_000 } })).status).toBe(200);
    expect((await runExport(origin, name)).status).toBe(201);
    const after = await origin.call('GET', '/api/v1/alerts');
    expect(after.body.alerts.filter((alert: { subject: string }) => alert.subject === name)).toEqual([]);
  });
});
