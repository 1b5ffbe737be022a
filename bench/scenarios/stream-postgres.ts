import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import type { BenchContext, Scenario } from '../lib/context.ts';
import { pgConnectionFields, pgRowsSql } from '../lib/dataset.ts';
import type { Figure } from '../lib/report.ts';
import { interleaved, medianOf, startStreamOrigin, streamOnce, type StreamRun } from '../lib/stream.ts';
import { ratio } from '../lib/stats.ts';
import { JS_PATH, PUSHDOWN_PATH } from './paths.ts';

const RSS_GOAL_MIB = 200;

/** `psql -c "\copy (<rows>) to stdout"` into /dev/null: PostgreSQL's own text COPY through its own client. */
async function psqlCopy(ctx: BenchContext, sql: string): Promise<{ seconds: number; rowsPerSecond: number }> {
  const devNull = openSync('/dev/null', 'w');
  const started = performance.now();
  try {
    const child = spawn('psql', [ctx.pgUrl, '-Xq', '-v', 'ON_ERROR_STOP=1', '-c', `\\copy (${sql.replace(/\s+/g, ' ')}) to stdout`], {
      stdio: ['ignore', devNull, 'inherit'],
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    if (code !== 0) throw new Error(`psql exited with ${code}`);
  } finally {
    closeSync(devNull);
  }
  const seconds = (performance.now() - started) / 1000;
  ctx.log(`  psql: ${Math.round(ctx.rows / seconds).toLocaleString('en-US')} rows/s`);
  return { seconds, rowsPerSecond: ctx.rows / seconds };
}

/** 5M rows from PostgreSQL `generate_series` as `stream=true&format=ndjson`. */
export const streamPostgres: Scenario = {
  name: 'stream-postgres',
  async run(ctx) {
    const sql = pgRowsSql(ctx.rows);
    const figures: Figure[] = [];
    const samples: Record<string, unknown> = {};
    for (const path of [JS_PATH, PUSHDOWN_PATH]) {
      ctx.log(`origin, ${path.label}`);
      const origin = await startStreamOrigin(ctx, `pg-${path.key}`, path.env);
      let both: { baseline: { seconds: number; rowsPerSecond: number }[]; target: StreamRun[] };
      try {
        await origin.addConnection({ name: 'bench_pg', ...pgConnectionFields(ctx.pgUrl) });
        both = await interleaved(
          ctx.runs,
          () => psqlCopy(ctx, sql),
          () => streamOnce(ctx, origin, 'stream=true&format=ndjson', { sql, connection_name: 'bench_pg' }, ctx.rows),
        );
      } finally {
        await origin.stop();
      }
      const runs = both.target;
      const baseRate = medianOf(both.baseline, (c) => c.rowsPerSecond);
      for (const r of runs) if (r.lines !== ctx.rows) throw new Error(`ndjson had ${r.lines} lines, expected ${ctx.rows}`);
      const rate = medianOf(runs, (r) => r.rowsPerSecond);
      const peak = Math.max(...runs.map((r) => r.peakRssMiB));
      const idle = runs[0].idleRssMiB;
      figures.push(
        {
          name: `throughput, ${path.label}`,
          value: rate,
          unit: 'rows/s',
          baselineName: 'psql \\copy to stdout',
          baseline: baseRate,
          ratio: ratio(rate, baseRate),
        },
        {
          name: `origin peak RSS, ${path.label}`,
          value: peak,
          unit: 'MiB',
          baselineName: 'origin idle RSS before the first stream',
          baseline: idle,
          ratio: ratio(peak, idle),
          goal: { text: `<= ${RSS_GOAL_MIB} MB`, met: peak <= RSS_GOAL_MIB },
        },
      );
      samples[path.key] = both;
    }
    return {
      scenario: 'stream-postgres',
      title: `Streaming ${ctx.rows.toLocaleString('en-US')} rows as NDJSON from PostgreSQL`,
      method: [
        '`POST /execute_sql?stream=true&format=ndjson` with a `generate_series` select of 6 columns (int8, int4 with NULLs, float8, text, timestamp, timestamptz) against a real origin process; the client checks the line count.',
        'Baseline: `psql -c "\\copy (<same select>) to stdout"` into /dev/null (PostgreSQL text COPY through its own client; a different format, so the ratio is the cost of the whole path, not of one format).',
        `Baseline and origin runs alternate (${ctx.runs} each); medians. The store is on PostgreSQL and peak RSS is read as in stream-csv.`,
        'Two origins: the JS serializers over the driver\'s values (`SLUICE_STREAM_PUSHDOWN=0`), and the push-down, where PostgreSQL renders each line in SQL and streams them by binary COPY (`origin/drivers/postgres/render.ts`, byte-identical to the JS path).',
      ],
      figures,
      notes: [],
      samples,
    };
  },
};
