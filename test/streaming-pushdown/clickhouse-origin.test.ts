import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../formats/fixture.ts';
import type { Origin } from '../harness/origin.ts';
import { startClickhouse, type ClickhouseServer } from '../harness/clickhouse.ts';
import { startQueryOrigin } from '../query/fixture.ts';
import { LINE_FORMATS, firstDifference } from './pushdown.ts';
import { unique } from '../harness/unique.ts';

/**
 * ClickHouse streams through the whole origin with SLUICE_STREAM_PUSHDOWN on
 * and off: the same bytes in csv, tsv and ndjson, with parameters, a row cap
 * (SLUICE_STREAM_MAX_ROWS cuts both at the same row, a csv value with a line
 * feed inside included) and a declined float column.
 */

let ch: ClickhouseServer;
let pushed: Origin;
let js: Origin;
const database = unique('ch_pd_origin');

beforeAll(async () => {
  ch = await startClickhouse();
  await ch.exec(
    'default',
    `CREATE DATABASE ${database}`,
    `CREATE TABLE ${database}.t (id UInt8, u UInt64, d Decimal(38, 10), s Nullable(String), at DateTime64(3), f Float64) ENGINE = MergeTree ORDER BY id`,
    `INSERT INTO ${database}.t VALUES (1, 18446744073709551615, -0.0000000001, 'a\\nb,"c"', '2024-04-06 15:29:59.999', 0.1),
      (2, 0, 0, '', '1969-12-31 23:59:59', 1e21), (3, 7, 1.5, NULL, '2299-12-31 00:00:00', -0), (4, 8, 2, 'é 中 😀', '2024-10-05 15:30:00', 5e-324),
      (5, 9, 3, '\\t\\\\', '2024-10-05 16:00:00', 1)`,
  );
  const env = { SLUICE_STREAM_MAX_ROWS: '4' };
  [pushed, js] = await Promise.all([startQueryOrigin({ ...env, SLUICE_STREAM_PUSHDOWN: '1' }), startQueryOrigin({ ...env, SLUICE_STREAM_PUSHDOWN: '0' })]);
  for (const origin of [pushed, js]) {
    const res = await origin.call('POST', '/api/v1/connections', { name: 'ch', db: 'clickhouse', host: ch.host, port: ch.port, database });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
}, 120_000);

afterAll(async () => {
  await Promise.all([pushed?.stop(), js?.stop()]);
  await ch?.stop();
});

async function same(sql: string, params?: Record<string, unknown>) {
  for (const format of LINE_FORMATS) {
    const body = { sql, connection_name: 'ch', ...(params ? { params } : {}) };
    // One at a time: the test front runs one chdb stream at once, and a capped stream's cancel must settle first.
    const a = await post(pushed, body, { format, stream: true });
    const b = await post(js, body, { format, stream: true });
    expect(a.status, a.text).toBe(200);
    expect(b.status, b.text).toBe(200);
    expect(firstDifference(b.text, a.text), format).toBeNull();
    expect(a.bytes.length).toBeGreaterThan(0);
  }
}

describe('pushed down and not, through the origin', () => {
  it('the same bytes, cut at the same row', async () => {
    await same('SELECT id, u, d, s, at FROM t ORDER BY id');
  });

  it('with parameters bound by the server', async () => {
    await same('SELECT id, u, s FROM t WHERE id >= :low ORDER BY id', { low: 2 });
  });

  it('a declined float column still streams', async () => {
    await same('SELECT id, f FROM t ORDER BY id');
  });

  it('the cap leaves exactly four rows in csv, a quoted line feed counted as part of its row', async () => {
    const res = await post(pushed, { sql: 'SELECT id, s FROM t ORDER BY id', connection_name: 'ch' }, { format: 'csv', stream: true });
    expect(res.text).toBe('id,s\r\n1,"a\nb,""c"""\r\n2,""\r\n3,\r\n4,é 中 😀\r\n');
  });
});
