import { join } from 'node:path';
import type { Scenario } from '../lib/context.ts';
import { DUCK_TABLE } from '../lib/dataset.ts';
import { checkNote, checkParquet } from '../lib/parquet-check.ts';
import type { Figure } from '../lib/report.ts';
import { duckCopyOnce, interleaved, medianOf, startStreamOrigin, streamOnce, type CopyRun, type StreamRun } from '../lib/stream.ts';
import { ratio } from '../lib/stats.ts';
import { JS_PATH } from './paths.ts';

const RSS_GOAL_MIB = 300;

/** The same rows as `stream=true&format=parquet`: memory, and the file DuckDB reads back. */
export const streamParquet: Scenario = {
  name: 'stream-parquet',
  async run(ctx) {
    const file = await ctx.duckFile();
    const figures: Figure[] = [];
    const notes: string[] = [];
    const samples: Record<string, unknown> = {};
    for (const path of [JS_PATH]) {
      ctx.log(`origin, ${path.label}`);
      const origin = await startStreamOrigin(ctx, `parquet-${path.key}`, path.env);
      const saved = (run: number) => join(ctx.workDir, `origin-${path.key}-${run}.parquet`);
      let both: { baseline: CopyRun[]; target: StreamRun[] };
      try {
        await origin.addConnection({ name: 'bench_duck', db: 'duckdb', database: file });
        const body = { sql: `select * from ${DUCK_TABLE}`, connection_name: 'bench_duck' };
        both = await interleaved(
          ctx.runs,
          () => duckCopyOnce(ctx, DUCK_TABLE, 'parquet', ctx.rows),
          (run) => streamOnce(ctx, origin, 'stream=true&format=parquet', body, ctx.rows, saved(run)),
        );
      } finally {
        await origin.stop();
      }
      const runs = both.target;
      const baseRate = medianOf(both.baseline, (c) => c.rowsPerSecond);
      notes.push(`${path.label}: baseline COPY grew the bench process by ${Math.round(medianOf(both.baseline, (c) => c.growthMiB))} MiB (median).`);
      const check = await checkParquet(file, saved(0), ctx.rows);
      const rate = medianOf(runs, (r) => r.rowsPerSecond);
      const peak = Math.max(...runs.map((r) => r.peakRssMiB));
      figures.push(
        {
          name: `origin peak RSS, ${path.label}`,
          value: peak,
          unit: 'MiB',
          baselineName: 'origin idle RSS before the first stream',
          baseline: runs[0].idleRssMiB,
          ratio: ratio(peak, runs[0].idleRssMiB),
          goal: { text: `<= ${RSS_GOAL_MIB} MB`, met: peak <= RSS_GOAL_MIB },
        },
        {
          name: `throughput, ${path.label}`,
          value: rate,
          unit: 'rows/s',
          baselineName: 'DuckDB COPY TO parquet',
          baseline: baseRate,
          ratio: ratio(rate, baseRate),
        },
        {
          name: `rows read back by DuckDB, ${path.label}`,
          value: check.file.rows,
          unit: 'rows',
          baselineName: 'rows in the table',
          baseline: check.source.rows,
          ratio: ratio(check.file.rows, check.source.rows),
          goal: { text: 'same rows, column types as documented, identical values', met: check.typesOk && check.valuesOk },
        },
      );
      notes.push(checkNote(path.label, check));
      samples[path.key] = { ...both, readBack: check };
    }
    return {
      scenario: 'stream-parquet',
      title: `Streaming ${ctx.rows.toLocaleString('en-US')} rows as Parquet from DuckDB`,
      method: [
        `\`POST /execute_sql?stream=true&format=parquet\` with \`select * from ${DUCK_TABLE}\` against a real origin process; the client saves the file.`,
        'The first saved file is read back by DuckDB: row count, column types (`DESCRIBE`), and an order-independent digest of every value compared with the table\'s.',
        `Baseline for throughput: DuckDB's own \`COPY (SELECT * FROM ${DUCK_TABLE}) TO 'file.parquet'\` in the bench process (no goal on this ratio).`,
        `Baseline and origin runs alternate (${ctx.runs} each); medians for rates, the maximum for memory. The store is on PostgreSQL and peak RSS is read as in stream-csv.`,
      ],
      figures,
      notes,
      samples,
    };
  },
};
