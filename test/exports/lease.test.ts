import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type FreshDatabase, freshDatabase } from '../harness/postgres-store.ts';
import { exportRoot, localDestination, newExport, ordersTable, pgConnection, runExport, savedQuery } from './fixture.ts';

/**
 * One run of an export at a time across origins sharing a PostgreSQL store:
 * the lease on the export's row. A second start gets 409 `export_running`
 * with `retry_after`; a run killed with SIGKILL loses the lease when it
 * expires, and the next run goes through with the watermark unchanged.
 */

const LEASE = 3;
let store: FreshDatabase;
let first: Origin;
let second: Origin;
let table: Awaited<ReturnType<typeof ordersTable>>;
let exportName: string;

beforeAll(async () => {
  store = await freshDatabase();
  table = await ordersTable();
  await table.insert(1, 50);
  const root = await exportRoot();
  const env = { SLUICE_DATABASE_URL: store.url, SLUICE_EXPORT_DIRS: root, SLUICE_EXPORT_LEASE: String(LEASE) };
  first = await startOrigin({ env, edge: false });
  second = await startOrigin({ env, edge: false });
  const connection = await pgConnection(first);
  const query = await savedQuery(first, {
    connection_name: connection,
    sql: `SELECT id, note FROM ${table.name}, (SELECT pg_sleep(:pause)) AS paused WHERE id > :after ORDER BY id`,
    parameters: { after: 'integer', pause: 'number' },
  });
  exportName = await newExport(first, {
    query,
    format: 'csv',
    destination: await localDestination(first, root),
    params: { pause: 2 },
    incremental: { column: 'id', parameter: 'after', start: 0 },
  });
});

afterAll(async () => {
  await Promise.all([first?.stop(), second?.stop()]);
  await table?.drop();
  await store?.drop();
});

describe('the lease of an export', () => {
  it('lets one of two simultaneous starts on two origins run; the other gets 409 with retry_after', async () => {
    const [a, b] = await Promise.all([runExport(first, exportName), runExport(second, exportName)]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([201, 409]);
    const refused = a.status === 409 ? a : b;
    expect(refused.body.code).toBe('export_running');
    expect(refused.body.retry_after).toBeGreaterThanOrEqual(1);
    expect(refused.body.retry_after).toBeLessThanOrEqual(LEASE);
    expect(refused.headers.get('retry-after')).toBe(String(refused.body.retry_after));
    expect((await second.call('GET', `/api/v1/exports/${exportName}`)).body).toMatchObject({ running: false, watermark: 50 });
  });

  it('passes to the next run once the lease of a killed holder expires, the watermark unchanged', async () => {
    await table.insert(51, 60);
    expect((await second.call('PATCH', `/api/v1/exports/${exportName}`, { params: { pause: 60 } })).status).toBe(200);
    const killed = runExport(first, exportName).catch(() => null);
    await expect.poll(async () => (await second.call('GET', `/api/v1/exports/${exportName}`)).body.running, { timeout: 10_000 }).toBe(true);
    first.process.kill('SIGKILL');
    await killed;

    const refused = await runExport(second, exportName);
    expect(refused.status).toBe(409);
    expect((await second.call('PATCH', `/api/v1/exports/${exportName}`, { params: { pause: 0 } })).status).toBe(200);
    await expect.poll(async () => (await second.call('GET', `/api/v1/exports/${exportName}`)).body.running, { timeout: (LEASE + 5) * 1000 }).toBe(false);

    const next = await runExport(second, exportName);
    expect(next.status, JSON.stringify(next.body)).toBe(201);
    expect(next.body).toMatchObject({ rows: 10, watermark: { from: 50, to: 60 } });
    const runs = await second.call('GET', `/api/v1/exports/${exportName}/runs`);
    expect(runs.body.runs[1]).toMatchObject({ status: 'error', object: null });
    expect(runs.body.runs[1].error).toMatch(/stopped before it finished/);
  });
});
