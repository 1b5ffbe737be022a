import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Scenario } from '../lib/context.ts';
import { DUCK_TABLE } from '../lib/dataset.ts';
import { exportOnce, runFigures, setUpExport, type ExportRun } from '../lib/export.ts';
import { checkNote, checkParquet } from '../lib/parquet-check.ts';
import type { Figure } from '../lib/report.ts';
import { duckCopyOnce, interleaved, medianOf, startStreamOrigin, type CopyRun } from '../lib/stream.ts';
import { ratio } from '../lib/stats.ts';

const RSS_GOAL_MIB = 150;

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** The rows of export-s3 exported as parquet into a local folder (SLUICE_EXPORT_DIRS), against DuckDB's COPY to a file. */
export const exportLocal: Scenario = {
  name: 'export-local',
  async run(ctx) {
    const file = await ctx.duckFile();
    const folder = join(ctx.workDir, 'exports');
    await mkdir(folder, { recursive: true });
    let both: { baseline: CopyRun[]; target: ExportRun[] };
    const origin = await startStreamOrigin(ctx, 'export-local', { SLUICE_EXPORT_DIRS: folder });
    try {
      const name = await setUpExport(origin, file, { url: folder });
      both = await interleaved(
        ctx.runs,
        () => duckCopyOnce(ctx, DUCK_TABLE, 'parquet', ctx.rows),
        () => exportOnce(ctx, origin, name, ctx.rows),
      );
    } finally {
      await origin.stop();
    }
    const runs = both.target;
    const onDisk = await Promise.all(runs.map(async (r) => (await stat(r.object)).size));
    const check = await checkParquet(file, runs[0].object, ctx.rows);
    const rate = medianOf(runs, (r) => r.rowsPerSecond);
    const baseRate = medianOf(both.baseline, (c) => c.rowsPerSecond);
    const figures: Figure[] = [
      {
        name: 'throughput, export to a local folder',
        value: rate,
        unit: 'rows/s',
        baselineName: 'DuckDB COPY TO parquet',
        baseline: baseRate,
        ratio: ratio(rate, baseRate),
      },
      ...runFigures(runs, onDisk, RSS_GOAL_MIB, 'file'),
      {
        name: 'rows read back by DuckDB (first file)',
        value: check.file.rows,
        unit: 'rows',
        baselineName: 'rows in the table',
        baseline: check.source.rows,
        ratio: ratio(check.file.rows, check.source.rows),
        goal: { text: 'same rows, column types as documented, identical values', met: check.typesOk && check.valuesOk },
      },
    ];
    return {
      scenario: 'export-local',
      title: `Exporting ${ctx.rows.toLocaleString('en-US')} rows as Parquet from DuckDB to a local folder`,
      method: [
        `A real origin process with \`SLUICE_EXPORT_DIRS\` set to a folder: a DuckDB connection to the benchmark file, \`select * from ${DUCK_TABLE}\` saved and published, a destination at that folder, and a parquet export of the query to it; each run is \`POST /api/v1/exports/{name}/runs\`, timed from the request to its 201 (the file flushed and renamed into place).`,
        `Baseline: DuckDB's own \`COPY (SELECT * FROM ${DUCK_TABLE}) TO 'file.parquet' (FORMAT parquet)\` in the bench process (DuckDB defaults, threads = cores); no goal on this ratio.`,
        `Baseline and origin runs alternate (${ctx.runs} each); medians for rates, the maximum for memory. The origin keeps its store on PostgreSQL and runs with \`SLUICE_QUERY_TIMEOUT=0\`; peak RSS is read as in stream-csv.`,
        'Each file\'s size on disk is compared with the run\'s `bytes`; the first is read by DuckDB (rows, `DESCRIBE` types, an order-independent digest of every value against the table\'s).',
      ],
      figures,
      notes: [
        `Files: the origin's ${onDisk.map(mib).join(', ')}. Baseline COPY grew the bench process by ${Math.round(medianOf(both.baseline, (c) => c.growthMiB))} MiB (median).`,
        checkNote('first file', check),
        'The origin and the bench process share the machine\'s cores; the baseline has them to itself.',
      ],
      samples: { ...both, onDisk, readBack: check },
    };
  },
};
