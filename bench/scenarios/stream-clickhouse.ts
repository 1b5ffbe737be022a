import { startClickhouse, type ClickhouseServer } from '../../test/harness/clickhouse.ts';
import type { BenchContext, Scenario } from '../lib/context.ts';
import type { Figure } from '../lib/report.ts';
import { interleaved, medianOf, startStreamOrigin, streamOnce } from '../lib/stream.ts';
import { ratio } from '../lib/stats.ts';
import { JS_PATH, PUSHDOWN_PATH } from './paths.ts';

/** Six columns the push-down renders: UInt64, nullable Int32, String, Decimal, DateTime64(3), Date. */
function rowsSql(rows: number): string {
  return `SELECT number AS id, if(number % 7 = 0, NULL, toInt32(number % 100000)) AS n, concat('name-', toString(number)) AS label,
    toDecimal64(number / 100, 2) AS amount, toDateTime64(1700000000 + number, 3) AS at, toDate(19000 + number % 1000) AS day
    FROM numbers(${rows})`;
}

/** ClickHouse's own `FORMAT CSVWithNames` over HTTP, the body read to its end and its lines counted. */
async function nativeCsv(ctx: BenchContext, ch: ClickhouseServer, sql: string): Promise<{ seconds: number; rowsPerSecond: number }> {
  const started = performance.now();
  const response = await fetch(`${ch.url}/?database=default`, { method: 'POST', body: `${sql} FORMAT CSVWithNames` });
  if (!response.ok) throw new Error(`ClickHouse answered ${response.status}: ${await response.text()}`);
  let lines = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
  }
  const seconds = (performance.now() - started) / 1000;
  if (lines !== ctx.rows + 1) throw new Error(`CSVWithNames had ${lines} lines, expected ${ctx.rows + 1}`);
  ctx.log(`  ClickHouse CSVWithNames: ${Math.round(ctx.rows / seconds).toLocaleString('en-US')} rows/s`);
  return { seconds, rowsPerSecond: ctx.rows / seconds };
}

/** Rows from ClickHouse 26 (chdb behind the test front) as `stream=true&format=csv`, JS path and push-down. */
export const streamClickhouse: Scenario = {
  name: 'stream-clickhouse',
  async run(ctx) {
    const sql = rowsSql(ctx.rows);
    const figures: Figure[] = [];
    const samples: Record<string, unknown> = {};
    const ch = await startClickhouse();
    try {
      for (const path of [JS_PATH, PUSHDOWN_PATH]) {
        ctx.log(`origin, ${path.label}`);
        const origin = await startStreamOrigin(ctx, `ch-${path.key}`, path.env);
        let both: Awaited<ReturnType<typeof interleaved<{ seconds: number; rowsPerSecond: number }, Awaited<ReturnType<typeof streamOnce>>>>>;
        try {
          await origin.addConnection({ name: 'bench_ch', db: 'clickhouse', host: ch.host, port: ch.port, database: 'default' });
          both = await interleaved(
            ctx.runs,
            () => nativeCsv(ctx, ch, sql),
            () => streamOnce(ctx, origin, 'stream=true&format=csv', { sql, connection_name: 'bench_ch' }, ctx.rows),
          );
        } finally {
          await origin.stop();
        }
        const runs = both.target;
        for (const r of runs) if (r.lines !== ctx.rows + 1) throw new Error(`csv had ${r.lines} lines, expected ${ctx.rows + 1}`);
        const rate = medianOf(runs, (r) => r.rowsPerSecond);
        const baseRate = medianOf(both.baseline, (c) => c.rowsPerSecond);
        figures.push(
          { name: `throughput, ${path.label}`, value: rate, unit: 'rows/s', baselineName: 'ClickHouse FORMAT CSVWithNames over HTTP', baseline: baseRate, ratio: ratio(rate, baseRate) },
          {
            name: `origin peak RSS, ${path.label}`,
            value: Math.max(...runs.map((r) => r.peakRssMiB)),
            unit: 'MiB',
            baselineName: 'origin idle RSS before the first stream',
            baseline: runs[0].idleRssMiB,
            ratio: ratio(Math.max(...runs.map((r) => r.peakRssMiB)), runs[0].idleRssMiB),
          },
        );
        samples[path.key] = both;
      }
    } finally {
      await ch.stop();
    }
    return {
      scenario: 'stream-clickhouse',
      title: `Streaming ${ctx.rows.toLocaleString('en-US')} rows as CSV from ClickHouse`,
      method: [
        '`POST /execute_sql?stream=true&format=csv` with a `numbers()` select of 6 columns (UInt64, Nullable(Int32), String, Decimal(18,2), DateTime64(3), Date) against a real origin process; the client counts the lines.',
        'ClickHouse is ClickHouse 26 in process (chdb) behind the test HTTP front (test/harness/clickhouse-front.ts), which both sides pay. Baseline: the same select with ClickHouse\'s own `FORMAT CSVWithNames` over HTTP, read to its end in the bench process (different bytes for dates, so the ratio is the cost of the whole path).',
        `Baseline and origin runs alternate (${ctx.runs} each); medians. The store is on PostgreSQL and peak RSS is read as in stream-csv.`,
        'Two origins: the JS serializers over the driver\'s values (`SLUICE_STREAM_PUSHDOWN=0`), and the push-down, where ClickHouse renders each line in SQL and streams them as RawBLOB (`origin/drivers/clickhouse/render.ts`, byte-identical to the JS path).',
      ],
      figures,
      notes: [],
      samples,
    };
  },
};
