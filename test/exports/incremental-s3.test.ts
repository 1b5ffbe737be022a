import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type TestS3, startS3 } from '../harness/s3.ts';
import { ndjsonIds, newExport, ordersTable, pgConnection, runExport, s3Destination, savedQuery } from './fixture.ts';

/**
 * Incremental delivery from PostgreSQL to S3: batches of new rows arrive in
 * objects of their own, their union is the table with no row twice; an
 * upload that fails mid-run leaves the watermark where it was, and the next
 * run resends exactly those rows.
 */

let s3: TestS3;
let origin: Origin;
let table: Awaited<ReturnType<typeof ordersTable>>;
let exportName: string;

const key = (object: string) => object.replace(/^s3:\/\/exports\//, '');
const objectIds = async (object: string) => ndjsonIds(await s3.getObject('exports', key(object)));

beforeAll(async () => {
  s3 = await startS3();
  table = await ordersTable();
  origin = await startOrigin();
  const connection = await pgConnection(origin);
  const query = await savedQuery(origin, {
    connection_name: connection,
    sql: `SELECT id, note FROM ${table.name} WHERE id > :after ORDER BY id`,
    parameters: { after: 'integer' },
  });
  const destination = await s3Destination(origin, s3, 'incremental');
  exportName = await newExport(origin, {
    query,
    format: 'ndjson',
    destination,
    path: '{name}/{run}',
    incremental: { column: 'id', parameter: 'after', start: 0 },
  });
});

afterAll(async () => {
  await origin?.stop();
  await table?.drop();
  await s3?.stop();
});

describe('an incremental export to S3', () => {
  const objects: string[] = [];

  it('delivers three batches in three objects whose union is the table, no row twice', async () => {
    const batches: Array<[number, number]> = [
      [1, 100],
      [101, 250],
      [251, 400],
    ];
    let watermark = 0;
    for (const [from, to] of batches) {
      await table.insert(from, to);
      const run = await runExport(origin, exportName);
      expect(run.status, JSON.stringify(run.body)).toBe(201);
      expect(run.body).toMatchObject({ rows: to - from + 1, watermark: { from: watermark, to } });
      expect(run.body.object).toBe(`s3://exports/incremental/${exportName}/${run.body.id}.ndjson`);
      const stored = await s3.getObject('exports', key(run.body.object));
      expect(run.body.bytes).toBe(stored.length);
      objects.push(run.body.object);
      watermark = to;
    }
    const delivered = (await Promise.all(objects.map(objectIds))).flat();
    expect(delivered).toEqual(Array.from({ length: 400 }, (_, i) => i + 1));
    expect((await origin.call('GET', `/api/v1/exports/${exportName}`)).body.watermark).toBe(400);
  });

  it('keeps the watermark when the upload fails mid-run, and resends exactly those rows next time', async () => {
    await table.insert(401, 5000);
    s3.failAfterBytes(20_000, 'reset');
    const failed = await runExport(origin, exportName);
    s3.failAfterBytes(null);
    expect(failed.status).toBe(502);
    expect(failed.body.code).toBe('connection_failed');
    expect(JSON.stringify(failed.body)).not.toContain(s3.secretAccessKey);
    expect((await origin.call('GET', `/api/v1/exports/${exportName}`)).body.watermark).toBe(400);
    const runs = await origin.call('GET', `/api/v1/exports/${exportName}/runs`);
    expect(runs.body.runs[0]).toMatchObject({ status: 'error', object: null, watermark: { from: 400, to: null } });
    const alerts = await origin.call('GET', '/api/v1/alerts');
    expect(alerts.body.alerts).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'export_failing', subject: exportName })]));

    const resent = await runExport(origin, exportName);
    expect(resent.status, JSON.stringify(resent.body)).toBe(201);
    expect(resent.body).toMatchObject({ rows: 4600, watermark: { from: 400, to: 5000 } });
    expect(await objectIds(resent.body.object)).toEqual(Array.from({ length: 4600 }, (_, i) => i + 401));
    objects.push(resent.body.object);
    const all = (await Promise.all(objects.map(objectIds))).flat();
    expect(new Set(all).size).toBe(all.length);
    expect(all).toHaveLength(5000);
    const cleared = await origin.call('GET', '/api/v1/alerts');
    expect(cleared.body.alerts.filter((alert: { subject: string }) => alert.subject === exportName)).toEqual([]);
  });

  it('writes nothing and keeps the watermark when no row is new', async () => {
    const run = await runExport(origin, exportName);
    expect(run.body).toMatchObject({ object: null, rows: 0, watermark: { from: 5000, to: 5000 } });
  });

  it('rewinds on PATCH {watermark} and resends from there', async () => {
    expect((await origin.call('PATCH', `/api/v1/exports/${exportName}`, { watermark: 4990 })).status).toBe(200);
    const run = await runExport(origin, exportName);
    expect(await objectIds(run.body.object)).toEqual([4991, 4992, 4993, 4994, 4995, 4996, 4997, 4998, 4999, 5000]);
  });
});

describe('a timed-out export', () => {
  it('cancels the query and aborts the upload, leaving no parts behind', async () => {
    const connection = await pgConnection(origin);
    const slow = await savedQuery(origin, {
      connection_name: connection,
      sql: "SELECT g AS id, repeat('x', 1000) AS pad FROM generate_series(1, 12000) g UNION ALL SELECT 0, pg_sleep(60)::text AS timed_out_export",
    });
    const destination = await s3Destination(origin, s3, 'slow');
    const name = await newExport(origin, { query: slow, format: 'csv', destination, timeout: 4 });
    const running = runExport(origin, name);
    // The rows before the sleep fill parts of a multipart upload first: the abort has parts to remove.
    await expect.poll(async () => (await s3.listMultipartUploads('exports', 'slow/')).length, { timeout: 4_000, interval: 50 }).toBe(1);
    const run = await running;
    expect(run.status).toBe(504);
    expect(run.body.code).toBe('timeout');
    await expect.poll(() => s3.listMultipartUploads('exports', 'slow/'), { timeout: 10_000 }).toEqual([]);
    expect(await s3.listObjects('exports', 'slow/')).toEqual([]);
    // Its own statement, by the alias no other file's uses: test/mcp/cancel.test.ts sleeps 60 s too, in parallel.
    const activity = await table.sql`select count(*)::int as n from pg_stat_activity where query like '%timed_out_export%' and state <> 'idle' and pid <> pg_backend_pid()`;
    expect(activity[0]!.n).toBe(0);
  });
});
