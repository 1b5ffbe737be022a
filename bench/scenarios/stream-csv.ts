import type { Scenario } from '../lib/context.ts';
import { DUCK_TABLE } from '../lib/dataset.ts';
import type { Figure } from '../lib/report.ts';
import { duckCopyOnce, embeddedStoreIdle, interleaved, medianOf, startStreamOrigin, streamOnce, type CopyRun, type StreamRun } from '../lib/stream.ts';
import { ratio } from '../lib/stats.ts';
import { JS_PATH, PUSHDOWN_ONE_THREAD_PATH, PUSHDOWN_PATH } from './paths.ts';

const RSS_GOAL_MIB = 200;
const RATE_GOAL = 0.5;

/** 5M rows x 6 columns from DuckDB as `stream=true&format=csv`, against DuckDB's own COPY TO csv. */
export const streamCsv: Scenario = {
  name: 'stream-csv',
  async run(ctx) {
    const file = await ctx.duckFile();
    const figures: Figure[] = [];
    const samples: Record<string, unknown> = {};
    const copies: CopyRun[] = [];
    const idles: number[] = [];
    for (const path of [JS_PATH, PUSHDOWN_PATH, PUSHDOWN_ONE_THREAD_PATH]) {
      ctx.log(`origin, ${path.label}, against DuckDB COPY TO csv`);
      const origin = await startStreamOrigin(ctx, `csv-${path.key}`, path.env);
      let runs: { baseline: CopyRun[]; target: StreamRun[] };
      try {
        await origin.addConnection({ name: 'bench_duck', db: 'duckdb', database: file, ...(path.duckOptions ? { options: path.duckOptions } : {}) });
        const body = { sql: `select * from ${DUCK_TABLE}`, connection_name: 'bench_duck' };
        runs = await interleaved(
          ctx.runs,
          () => duckCopyOnce(ctx, DUCK_TABLE, 'csv', ctx.rows),
          () => streamOnce(ctx, origin, 'stream=true&format=csv', body, ctx.rows),
        );
      } finally {
        await origin.stop();
      }
      for (const r of runs.target) if (r.lines !== ctx.rows + 1) throw new Error(`csv had ${r.lines} lines, expected ${ctx.rows + 1}`);
      const baseRate = medianOf(runs.baseline, (c) => c.rowsPerSecond);
      const rate = medianOf(runs.target, (r) => r.rowsPerSecond);
      const peak = Math.max(...runs.target.map((r) => r.peakRssMiB));
      const idle = runs.target[0].idleRssMiB;
      copies.push(...runs.baseline);
      idles.push(idle);
      figures.push(
        {
          name: `throughput, ${path.label}`,
          value: rate,
          unit: 'rows/s',
          baselineName: 'DuckDB COPY TO csv',
          baseline: baseRate,
          ratio: ratio(rate, baseRate),
          goal: { text: `>= ${RATE_GOAL} of DuckDB's rate`, met: rate / baseRate >= RATE_GOAL },
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
      samples[path.key] = runs;
    }
    ctx.log('origin on the embedded store, idle');
    const embedded = await embeddedStoreIdle(ctx);
    const storeIdle = Math.min(...idles);
    for (const [when, value] of [['first start', embedded.firstStartMiB], ['restart', embedded.restartMiB]] as const) {
      figures.push({
        name: `origin idle RSS on the embedded store (PGlite), ${when}`,
        value,
        unit: 'MiB',
        baselineName: 'idle RSS with the store on PostgreSQL',
        baseline: storeIdle,
        ratio: ratio(value, storeIdle),
      });
    }
    samples.embeddedStoreIdle = embedded;
    return {
      scenario: 'stream-csv',
      title: `Streaming ${ctx.rows.toLocaleString('en-US')} rows as CSV from DuckDB`,
      method: [
        `\`POST /execute_sql?stream=true&format=csv\` with \`select * from ${DUCK_TABLE}\` (BIGINT, INTEGER with NULLs, DOUBLE, VARCHAR needing quotes every 50th row, TIMESTAMP, TIMESTAMPTZ) against a real origin process (TZ=Europe/Paris); the client reads as fast as it can and checks the line count.`,
        `Baseline: DuckDB's own \`COPY (SELECT * FROM ${DUCK_TABLE}) TO 'file.csv' (FORMAT csv, HEADER)\` in the bench process, DuckDB defaults (threads = cores), the same file.`,
        'Three origin configurations: the JS serializers, push-down with the connection\'s defaults (the stream on `stream_threads` = the number of cores, at most 4, as the baseline runs on every core; ADR 0017), and push-down on one DuckDB thread (`stream_threads: 1`).',
        `Throughput is rows over the time from the request to the last byte. Baseline and origin runs alternate (${ctx.runs} each per origin configuration); medians.`,
        'The origin keeps its metadata store on the local PostgreSQL (`SLUICE_DATABASE_URL`, a fresh database), so its memory is the stream\'s, and runs with `SLUICE_QUERY_TIMEOUT=0` (the default 30 s limit spans the whole download and would cut a slow export short); the embedded store\'s own footprint is measured separately (last figures).',
        'Peak RSS: the origin process\'s VmHWM (reset before each run through /proc/<pid>/clear_refs) and VmRSS polled every 25 ms; the maximum over the runs.',
      ],
      figures,
      notes: [
        `Baseline COPY grew the bench process by ${Math.round(medianOf(copies, (c) => c.growthMiB))} MiB (median).`,
        'The origin and the client share the machine\'s cores; the baseline has them to itself.',
      ],
      samples,
    };
  },
};
