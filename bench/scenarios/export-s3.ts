import { join } from 'node:path';
import type { Scenario } from '../lib/context.ts';
import { DUCK_TABLE } from '../lib/dataset.ts';
import { exportOnce, runFigures, setUpExport, type ExportRun } from '../lib/export.ts';
import { checkNote, checkParquet } from '../lib/parquet-check.ts';
import type { Figure } from '../lib/report.ts';
import { copyThenUpload, keyOf, PART_SIZE, QUEUE_SIZE, startBenchS3, type CopyUploadRun } from '../lib/s3.ts';
import { interleaved, medianOf, startStreamOrigin } from '../lib/stream.ts';
import { ratio } from '../lib/stats.ts';

const RSS_GOAL_MIB = 250;
const RATE_GOAL = 0.7;

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** 5M rows x 6 columns from DuckDB exported as parquet to an S3-protocol server on loopback, against COPY then upload. */
export const exportS3: Scenario = {
  name: 'export-s3',
  async run(ctx) {
    const file = await ctx.duckFile();
    const s3 = await startBenchS3(ctx);
    let both: { baseline: CopyUploadRun[]; target: ExportRun[] };
    const stored: number[] = [];
    const readBack = join(ctx.workDir, 'export-s3-read-back.parquet');
    try {
      const origin = await startStreamOrigin(ctx, 'export-s3', {});
      try {
        const name = await setUpExport(origin, file, s3.destination('bench'));
        both = await interleaved(
          ctx.runs,
          (run) => copyThenUpload(ctx, s3, run),
          () => exportOnce(ctx, origin, name, ctx.rows),
        );
      } finally {
        await origin.stop();
      }
      for (const run of both.target) stored.push(await s3.size(keyOf(run.object)));
      await s3.download(keyOf(both.target[0].object), readBack);
    } finally {
      await s3.stop();
    }
    const check = await checkParquet(file, readBack, ctx.rows);
    const runs = both.target;
    const rate = medianOf(runs, (r) => r.rowsPerSecond);
    const baseRate = medianOf(both.baseline, (b) => b.rowsPerSecond);
    const figures: Figure[] = [
      {
        name: 'end-to-end throughput, export to S3',
        value: rate,
        unit: 'rows/s',
        baselineName: 'DuckDB COPY TO parquet, then one lib-storage upload',
        baseline: baseRate,
        ratio: ratio(rate, baseRate),
        goal: { text: `>= ${RATE_GOAL} of the baseline's rate`, met: rate / baseRate >= RATE_GOAL },
      },
      ...runFigures(runs, stored, RSS_GOAL_MIB, 'object'),
      {
        name: 'rows read back by DuckDB (first object, downloaded)',
        value: check.file.rows,
        unit: 'rows',
        baselineName: 'rows in the table',
        baseline: check.source.rows,
        ratio: ratio(check.file.rows, check.source.rows),
        goal: { text: 'same rows, column types as documented, identical values', met: check.typesOk && check.valuesOk },
      },
    ];
    const copyMedian = medianOf(both.baseline, (b) => b.copySeconds);
    const uploadMedian = medianOf(both.baseline, (b) => b.uploadSeconds);
    return {
      scenario: 'export-s3',
      title: `Exporting ${ctx.rows.toLocaleString('en-US')} rows as Parquet from DuckDB to an S3-protocol server`,
      method: [
        `A real origin process: a DuckDB connection to the benchmark file, \`select * from ${DUCK_TABLE}\` saved and published, a destination \`s3://exports/bench\` at the S3 server, and a parquet export of the query to it; each run is \`POST /api/v1/exports/{name}/runs\`, timed from the request to its 201 (the object complete).`,
        'The S3 server is the tests\' (test/harness/s3.ts: s3rver on loopback behind a proxy checking every SigV4 signature), in a process of its own (bench/s3-server.ts), shared by the origin and the baseline.',
        `Baseline: DuckDB's own \`COPY (SELECT * FROM ${DUCK_TABLE}) TO 'file.parquet' (FORMAT parquet)\` in the bench process (DuckDB defaults, threads = cores), then one \`@aws-sdk/lib-storage\` \`Upload\` of that file from the bench process to the same server, with the origin's part size (${PART_SIZE / 2 ** 20} MiB) and parts in flight (${QUEUE_SIZE}); its time is the two added.`,
        `Baseline and origin runs alternate (${ctx.runs} each); medians for rates, the maximum for memory. The origin keeps its store on PostgreSQL and runs with \`SLUICE_QUERY_TIMEOUT=0\`; peak RSS is read as in stream-csv.`,
        'Each object\'s size is read back from the server (HeadObject) against the run\'s `bytes`; the first object is downloaded and read by DuckDB (rows, `DESCRIBE` types, an order-independent digest of every value against the table\'s).',
      ],
      figures,
      notes: [
        `Baseline split (medians): COPY ${copyMedian.toFixed(2)} s, upload ${uploadMedian.toFixed(2)} s of ${mib(both.baseline[0].bytes)} (${mib(both.baseline[0].bytes / uploadMedian)}/s).`,
        `Objects: the origin's ${runs.map((r) => mib(r.bytes)).join(', ')}; stored ${stored.map(mib).join(', ')}. DuckDB's file: ${mib(both.baseline[0].bytes)}, stored ${both.baseline.map((b) => mib(b.storedBytes)).join(', ')}.`,
        checkNote('first object', check),
        'The origin, the S3 server and the bench process share the machine\'s cores.',
      ],
      samples: { ...both, stored, readBack: check },
    };
  },
};
