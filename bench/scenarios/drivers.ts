import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startClickhouse } from '../../test/harness/clickhouse.ts';
import type { Scenario } from '../lib/context.ts';
import { ROOT } from '../lib/process.ts';
import type { Figure } from '../lib/report.ts';
import { median, ratio } from '../lib/stats.ts';

const run = promisify(execFile);

interface DriverRun {
  rows: number;
  seconds: number;
  growthMiB: number;
}

function serverSettings(type: string, url: string) {
  const u = new URL(url);
  return { type, host: u.hostname, port: Number(u.port), user: decodeURIComponent(u.username), database: u.pathname.slice(1), options: {} };
}

/**
 * Each driver's cursor (conversion to the value model included) against the
 * database's own client reading the same 6-column statement, 1M rows, each
 * run in its own process. Not in the default set: `npm run bench -- drivers`.
 */
export const drivers: Scenario = {
  name: 'drivers',
  async run(ctx) {
    const rows = Math.min(ctx.rows, 1_000_000);
    const sqliteFile = join(ctx.workDir, 'empty.sqlite');
    writeFileSync(sqliteFile, '');
    const mysqlUrl = process.env.SLUICE_BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
    const cases: Record<string, unknown> = {
      postgres: serverSettings('postgres', ctx.pgUrl),
      mysql: serverSettings('mysql', mysqlUrl),
      duckdb: { type: 'duckdb', database: null, options: {} },
      sqlite: { type: 'sqlite', database: sqliteFile, options: {} },
      jdbc: {
        type: 'jdbc',
        options: { jdbc_url: 'jdbc:h2:mem:bench;DATABASE_TO_LOWER=TRUE;LAZY_QUERY_EXECUTION=TRUE', driver_class: 'org.h2.Driver', driver_jar: '/usr/share/java/h2.jar' },
      },
    };
    // ClickHouse 26 in process (chdb) behind the test harness's HTTP front; the baseline is its own CSV over HTTP.
    const clickhouse = await startClickhouse();
    cases.clickhouse = { type: 'clickhouse', host: clickhouse.host, port: clickhouse.port, database: 'default', options: {} };
    const figures: Figure[] = [];
    const notes: string[] = [];
    const samples: Record<string, unknown> = {};
    for (const [driver, settings] of Object.entries(cases)) {
      const once = async (mode: string): Promise<DriverRun> => {
        const args = ['--import', 'tsx', join(ROOT, 'bench/lib/driver-worker.ts'), driver, String(rows), mode, JSON.stringify(settings)];
        const { stdout } = await run(process.execPath, args, { cwd: ROOT, env: { ...process.env, TZ: 'Europe/Paris' } });
        return JSON.parse(stdout.trim().split('\n').pop()!);
      };
      const native: DriverRun[] = [];
      const mine: DriverRun[] = [];
      try {
        for (let i = 0; i < ctx.runs; i++) {
          native.push(await once('native'));
          mine.push(await once('sluice'));
        }
      } catch (error) {
        notes.push(`${driver}: skipped (${(error as Error).message.split('\n')[0]})`);
        continue;
      }
      const baseRate = rows / median(native.map((r) => r.seconds));
      const rate = rows / median(mine.map((r) => r.seconds));
      const growth = Math.max(...mine.map((r) => r.growthMiB));
      const baseGrowth = Math.max(...native.map((r) => r.growthMiB));
      ctx.log(`  ${driver}: ${Math.round(rate)} rows/s (native ${Math.round(baseRate)}), +${Math.round(growth)} MiB`);
      figures.push(
        { name: `${driver}: throughput`, value: rate, unit: 'rows/s', baselineName: 'native client', baseline: baseRate, ratio: ratio(rate, baseRate) },
        { name: `${driver}: peak RSS growth`, value: growth, unit: 'MiB', baselineName: 'native client', baseline: baseGrowth, ratio: ratio(growth, baseGrowth) },
      );
      samples[driver] = { native, sluice: mine };
    }
    await clickhouse.stop();
    return {
      scenario: 'drivers',
      title: `Driver cursors, ${rows.toLocaleString('en-US')} rows x 6 columns`,
      method: [
        'Each driver (`origin/drivers`) reads a generated 6-column statement (int, bigint, text, decimal, timestamp, double) in batches of 2,000 and drops the rows: its cursor and its conversion to the value model.',
        'Baseline: the database\'s own client reading the same statement in its plainest streaming form (postgres.js `cursor(2000)`, mysql2 `stream()`, DuckDB `fetchChunk` + `getRows`, better-sqlite3 `raw().iterate()`, ClickHouse\'s own `FORMAT CSVWithNames` over HTTP with lines counted, H2 in memory through a plain Java loop over the same JDBC ResultSet with JVM start included as for the helper). Alternating, each run in its own process.',
        'ClickHouse is ClickHouse 26 in process (chdb) behind the test HTTP front (test/harness/clickhouse-front.ts), so both sides pay the front; the JDBC case reads H2 in memory.',
        'JDBC peak RSS is the Node process only: the helper\'s JVM (and the baseline\'s) is not counted, so the baseline\'s growth is near zero.',
      ],
      figures,
      notes,
      samples,
    };
  },
};
