/**
 * Streaming throughput and memory per driver (not a test: run by hand).
 *   npx tsx test/drivers/throughput.ts [rows] [driver...]
 * Rows of 6 columns (int, bigint, text, decimal, timestamp, double), read in
 * batches of 1000 and dropped; reports rows/s and the peak RSS above the start.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDriver } from '../../origin/drivers/registry.ts';
import type { ConnectionSettings } from '../../origin/drivers/types.ts';
import { MY, PG, env, request } from './helpers.ts';

const rows = Number(process.argv[2] ?? 1_000_000);
const only = process.argv.slice(3);
const dir = mkdtempSync(join(tmpdir(), 'sluice-throughput-'));

const cases: { name: string; settings: ConnectionSettings; sql: string }[] = [
  {
    name: 'postgres',
    settings: { ...PG, options: {} },
    sql: `select g::int4, g::int8 * 1000, md5(g::text), (g / 7.0)::numeric(14,4),
      timestamp '2024-01-01' + g * interval '1 second', g / 3.0::float8 from generate_series(1, ${rows}) g`,
  },
  {
    name: 'mysql',
    settings: { ...MY, options: {} },
    sql: `select seq, seq * 1000, md5(seq), cast(seq / 7 as decimal(14,4)),
      timestamp '2024-01-01 00:00:00' + interval seq second, seq / 3e0 from seq_1_to_${rows}`,
  },
  {
    name: 'duckdb',
    settings: { type: 'duckdb', database: null, options: {} },
    sql: `select i::int, i * 1000, md5(i::varchar), (i / 7)::decimal(14,4),
      timestamp '2024-01-01' + to_seconds(i), i / 3 from range(${rows}) t(i)`,
  },
  {
    name: 'sqlite',
    settings: { type: 'sqlite', database: join(dir, 'empty.db'), options: {} },
    sql: `with recursive r(i) as (select 1 union all select i + 1 from r where i < ${rows})
      select i, i * 1000, hex(randomblob(16)), i / 7.0, datetime(1704067200 + i, 'unixepoch'), i / 3.0 from r`,
  },
];

const { default: Database } = await import('better-sqlite3');
new Database(join(dir, 'empty.db')).close();

for (const c of cases.filter((c) => only.length === 0 || only.includes(c.name))) {
  const driver = createDriver(c.settings, env());
  global.gc?.();
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 25);
  const started = performance.now();
  const cursor = await driver.run(request(c.sql, { timeoutMs: 0 }));
  let count = 0;
  for await (const batch of cursor.batches) count += batch.length;
  await cursor.close();
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  await driver.close();
  const perSecond = Math.round(count / seconds);
  console.log(
    `${c.name.padEnd(9)} ${count} rows in ${seconds.toFixed(2)} s = ${perSecond.toLocaleString('en')} rows/s, ` +
      `peak RSS +${Math.round((peak - base) / 2 ** 20)} MiB`,
  );
}
rmSync(dir, { recursive: true, force: true });
