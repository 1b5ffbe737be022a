/**
 * Reads rows through one driver, in a process of its own:
 * `node --import tsx bench/lib/driver-worker.ts <driver> <rows> <sluice|native> <settings JSON>`.
 * `sluice` goes through the project's driver (cursor, conversion to the value
 * model); `native` reads the same statement with the database's own client
 * in its plainest streaming form. Prints one JSON line.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { createDriver } from '../../origin/drivers/registry.ts';
import type { ConnectionSettings, SqlDriverType } from '../../origin/drivers/types.ts';

const [driver, rowsText, mode, settingsJson] = process.argv.slice(2);
const rows = Number(rowsText);
const settings = JSON.parse(settingsJson) as ConnectionSettings & { type: SqlDriverType };

const SQL: Record<string, string> = {
  postgres: `select g::int4, g::int8 * 1000, md5(g::text), (g / 7.0)::numeric(14,4),
    timestamp '2024-01-01' + g * interval '1 second', g / 3.0::float8 from generate_series(1, ${rows}) g`,
  mysql: `select seq, seq * 1000, md5(seq), cast(seq / 7 as decimal(14,4)),
    timestamp '2024-01-01 00:00:00' + interval seq second, seq / 3e0 from seq_1_to_${rows}`,
  duckdb: `select i::int, i * 1000, md5(i::varchar), (i / 7)::decimal(14,4),
    timestamp '2024-01-01' + to_seconds(i), i / 3 from range(${rows}) t(i)`,
  clickhouse: `select toInt32(number), number * 1000, hex(MD5(toString(number))), toDecimal64(number / 7, 4),
    toDateTime64('2024-01-01 00:00:00', 0, 'UTC') + number, number / 3 from numbers(${rows})`,
  jdbc: `SELECT CAST("X" AS INT), "X" * 1000, RAWTOHEX(HASH('MD5', CAST("X" AS VARCHAR))), CAST("X" / 7.0 AS DECIMAL(14, 4)),
    DATEADD(SECOND, "X", TIMESTAMP '2024-01-01 00:00:00'), "X" / 3.0E0 FROM SYSTEM_RANGE(1, ${rows})`,
  sqlite: `with recursive r(i) as (select 1 union all select i + 1 from r where i < ${rows})
    select i, i * 1000, hex(randomblob(16)), i / 7.0, datetime(1704067200 + i, 'unixepoch'), i / 3.0 from r`,
};

async function native(sql: string, tick: () => void): Promise<number> {
  let count = 0;
  switch (driver) {
    case 'postgres': {
      const { default: postgres } = await import('postgres');
      const client = postgres({ host: settings.host!, port: settings.port!, user: settings.user!, database: settings.database!, max: 1 });
      for await (const batch of client.unsafe(sql).cursor(2000)) (count += batch.length), tick();
      await client.end();
      return count;
    }
    case 'mysql': {
      const mysql = await import('mysql2');
      const connection = mysql.createConnection({ host: settings.host!, port: settings.port!, user: settings.user!, database: settings.database! });
      await new Promise<void>((resolve, reject) => {
        connection.query(sql).stream().on('data', () => ++count % 2000 === 0 && tick()).on('end', resolve).on('error', reject);
      });
      connection.end();
      return count;
    }
    case 'duckdb': {
      const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
      const connection = await instance.connect();
      const result = await connection.stream(sql);
      for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) (count += chunk.getRows().length), tick();
      connection.closeSync();
      instance.closeSync();
      return count;
    }
    case 'clickhouse': {
      // ClickHouse's own CSV over HTTP, read as it arrives.
      const res = await fetch(`http://${settings.host}:${settings.port}/?database=default`, { method: 'POST', body: `${sql} FORMAT CSVWithNames` });
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        for (const byte of chunk) if (byte === 10) count++;
        tick();
      }
      return count - 1;
    }
    case 'jdbc': {
      // A plain Java loop over the same ResultSet (bench/lib/JdbcLoop.java), JVM start included as for the helper.
      const { execFileSync } = await import('node:child_process');
      const { compileHelper } = await import('../../origin/drivers/jdbc/helper.ts');
      const dir = `${await compileHelper()}-bench`;
      execFileSync('javac', ['-d', dir, new URL('./JdbcLoop.java', import.meta.url).pathname]);
      const options = settings.options as Record<string, string>;
      const out = execFileSync('java', ['-cp', `${dir}:${options.driver_jar}`, 'JdbcLoop', options.driver_class, options.jdbc_url, sql], { encoding: 'utf8' });
      tick();
      return Number(out.trim());
    }
    default: {
      const { default: Database } = await import('better-sqlite3');
      const db = new Database(settings.database!, { readonly: true });
      for (const _ of db.prepare(sql).raw().iterate()) if (++count % 2000 === 0) tick();
      db.close();
      return count;
    }
  }
}

async function sluice(sql: string, tick: () => void): Promise<number> {
  const d = createDriver(settings, { poolSize: 1, poolMax: 10, poolIdleTimeoutMs: 60_000, allowWrites: false });
  const cursor = await d.run({ text: sql, values: [], readOnly: true, timeoutMs: 0, signal: new AbortController().signal, batchSize: 2000 });
  let count = 0;
  for await (const batch of cursor.batches) (count += batch.length), tick();
  await cursor.close();
  await d.close();
  return count;
}

const base = process.memoryUsage.rss();
let peak = base;
const tick = () => (peak = Math.max(peak, process.memoryUsage.rss()));
const started = performance.now();
const count = await (mode === 'native' ? native : sluice)(SQL[driver], tick);
const seconds = (performance.now() - started) / 1000;
console.log(JSON.stringify({ driver, mode, rows: count, seconds, growthMiB: (Math.max(peak, process.memoryUsage.rss()) - base) / 2 ** 20 }));
process.exit(0);
