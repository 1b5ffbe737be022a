import { execFileSync } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { type IncomingMessage, get } from 'node:http';
import { join } from 'node:path';
import type { BenchContext, Scenario } from '../lib/context.ts';
import { DUCK_TABLE } from '../lib/dataset.ts';
import { rssMiB, watchPeak } from '../lib/memory.ts';
import type { BenchOrigin } from '../lib/origin.ts';
import type { Figure } from '../lib/report.ts';
import { copyThenUpload, type CopyUploadRun, startBenchS3 } from '../lib/s3.ts';
import { ratio } from '../lib/stats.ts';
import { duckCopyOnce, interleaved, medianOf, startStreamOrigin, type CopyRun } from '../lib/stream.ts';

const RATE_GOAL = 0.7;
const RSS_GOAL_MIB = 250;
const DOWNLOAD_GOAL = 0.8;
const CHUNK_ROWS = 1_000_000;

interface ResultRun {
  id: string;
  seconds: number;
  rowsPerSecond: number;
  idleRssMiB: number;
  peakRssMiB: number;
  chunks: Array<{ index: number; rows: number; bytes: number; url: string }>;
}

interface DownloadRun {
  bytes: number;
  linkMiBps: number;
  diskMiBps: number;
}

const json = async (res: Response) => (await res.json()) as Record<string, any>;

/** One result of the whole table as parquet chunks, timed from the POST to the poll that finds it succeeded. */
async function resultOnce(ctx: BenchContext, origin: BenchOrigin, rows: number, where: string): Promise<ResultRun> {
  origin.assertAlive();
  const idleRssMiB = rssMiB(origin.pid);
  const watch = watchPeak(origin.pid);
  const started = performance.now();
  const made = await fetch(`${origin.url}/results`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sql: `select * from ${DUCK_TABLE}`, connection_name: 'bench_duck', format: 'parquet', chunk_rows: CHUNK_ROWS, wait: 60 }),
  });
  let result = await json(made);
  while (result.state === 'running' || result.state === 'queued') {
    await new Promise((resolve) => setTimeout(resolve, 50));
    result = await json(await fetch(`${origin.url}/results/${result.id}`));
  }
  const seconds = (performance.now() - started) / 1000;
  const peakRssMiB = watch.stop();
  if (result.state !== 'succeeded' || result.rows !== rows) throw new Error(`result ${result.id}: ${result.state}, ${result.rows} rows ${JSON.stringify(result.error)}`);
  const run = { id: result.id, seconds, rowsPerSecond: rows / seconds, idleRssMiB, peakRssMiB, chunks: result.chunks };
  ctx.log(`  origin result (${where}): ${Math.round(run.rowsPerSecond).toLocaleString('en-US')} rows/s, ${run.chunks.length} chunks, peak RSS ${peakRssMiB.toFixed(0)} MiB (idle ${idleRssMiB.toFixed(0)})`);
  return run;
}

/** MiB/s of reading a body to its end. */
async function rateOf(read: () => AsyncIterable<Uint8Array>): Promise<{ bytes: number; mibps: number }> {
  const started = performance.now();
  let bytes = 0;
  for await (const chunk of read()) bytes += chunk.byteLength;
  return { bytes, mibps: bytes / 2 ** 20 / ((performance.now() - started) / 1000) };
}

/** Alternations of the download against the disk read: at least this many, each well under a second. */
const DOWNLOAD_RUNS = 5;

/** The chunk through its link, read with `node:http` as a downloader such as curl reads it. */
const linkRead = (url: string) =>
  async function* () {
    const res = await new Promise<IncomingMessage>((resolve, reject) => get(url, resolve).on('error', reject));
    if (res.statusCode !== 200) throw new Error(`chunk link: ${res.statusCode}`);
    yield* res;
  };

/**
 * The first chunk through its link, against Node reading the same file from
 * the origin's folder; alternated, at least DOWNLOAD_RUNS times each, once
 * the results' files are written back to disk (`sync`), so that neither read
 * shares the machine with the kernel's writeback. Each read once untimed
 * first, so both find the file in the page cache and neither pays for its
 * first use alone.
 */
async function downloads(ctx: BenchContext, url: string, path: string): Promise<DownloadRun[]> {
  const out: DownloadRun[] = [];
  execFileSync('sync');
  await rateOf(() => createReadStream(path));
  await rateOf(linkRead(url));
  for (let run = 0; run < Math.max(ctx.runs, DOWNLOAD_RUNS); run++) {
    const link = await rateOf(linkRead(url));
    const disk = await rateOf(() => createReadStream(path));
    if (link.bytes !== disk.bytes) throw new Error(`the link gave ${link.bytes} bytes, the file has ${disk.bytes}`);
    ctx.log(`  chunk 0: link ${link.mibps.toFixed(0)} MiB/s, disk ${disk.mibps.toFixed(0)} MiB/s`);
    out.push({ bytes: link.bytes, linkMiBps: link.mibps, diskMiBps: disk.mibps });
  }
  return out;
}

/** The rate against its baseline's, and the origin's peak memory, of one place results were kept. */
function placeFigures(where: string, baselineName: string, runs: ResultRun[], baseline: Array<{ rowsPerSecond: number }>): Figure[] {
  const rate = medianOf(runs, (r) => r.rowsPerSecond);
  const baseRate = medianOf(baseline, (c) => c.rowsPerSecond);
  const peak = Math.max(...runs.map((r) => r.peakRssMiB));
  return [
    {
      name: `throughput, parquet chunks ${where}`,
      value: rate,
      unit: 'rows/s',
      baselineName,
      baseline: baseRate,
      ratio: ratio(rate, baseRate),
      goal: { text: `>= ${RATE_GOAL} of the baseline's rate`, met: ratio(rate, baseRate) >= RATE_GOAL },
    },
    {
      name: `origin peak RSS, ${where}`,
      value: peak,
      unit: 'MiB',
      baselineName: 'origin idle RSS before the first result',
      baseline: runs[0]!.idleRssMiB,
      ratio: ratio(peak, runs[0]!.idleRssMiB),
      goal: { text: `<= ${RSS_GOAL_MIB} MB`, met: peak <= RSS_GOAL_MIB },
    },
  ];
}

/** The whole table as a result in a bucket destination, against DuckDB's COPY then one upload. */
async function bucketHalf(ctx: BenchContext, file: string): Promise<{ baseline: CopyUploadRun[]; target: ResultRun[] }> {
  const s3 = await startBenchS3(ctx);
  try {
    const origin = await startStreamOrigin(ctx, 'results-s3', { SLUICE_RESULT_DESTINATION: 'bench_results' });
    try {
      await origin.addConnection({ name: 'bench_duck', db: 'duckdb', database: file });
      const made = await fetch(`${origin.url}/api/v1/destinations`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench_results', ...s3.destination('results') }) });
      if (made.status !== 201) throw new Error(`destination: ${made.status} ${await made.text()}`);
      return await interleaved(
        ctx.runs,
        (run) => copyThenUpload(ctx, s3, run),
        () => resultOnce(ctx, origin, ctx.rows, 'S3'),
      );
    } finally {
      await origin.stop();
    }
  } finally {
    await s3.stop();
  }
}

/**
 * Stored results: the whole table written as parquet chunks to the origin's
 * folder, a chunk downloaded through its signed link, then the same into a
 * bucket destination.
 */
export const results: Scenario = {
  name: 'results',
  async run(ctx) {
    const file = await ctx.duckFile();
    const folder = join(ctx.workDir, 'results');
    const origin = await startStreamOrigin(ctx, 'results', { SLUICE_RESULT_DIR: folder });
    let both: { baseline: CopyRun[]; target: ResultRun[] };
    let fetched: DownloadRun[];
    try {
      await origin.addConnection({ name: 'bench_duck', db: 'duckdb', database: file });
      both = await interleaved(
        ctx.runs,
        () => duckCopyOnce(ctx, DUCK_TABLE, 'parquet', ctx.rows),
        () => resultOnce(ctx, origin, ctx.rows, 'local'),
      );
      const first = both.target[0]!;
      fetched = await downloads(ctx, first.chunks[0]!.url, join(folder, first.id, '0.parquet'));
    } finally {
      await origin.stop();
    }
    const bucket = await bucketHalf(ctx, file);
    const linkRate = medianOf(fetched, (d) => d.linkMiBps);
    const diskRate = medianOf(fetched, (d) => d.diskMiBps);
    const figures: Figure[] = [
      ...placeFigures('to a local folder', 'DuckDB COPY TO parquet', both.target, both.baseline),
      ...placeFigures('to S3', 'DuckDB COPY TO parquet, then one lib-storage upload', bucket.target, bucket.baseline),
      {
        name: 'chunk download through its link',
        value: linkRate,
        unit: 'MiB/s',
        baselineName: 'Node reading the same file from disk',
        baseline: diskRate,
        ratio: ratio(linkRate, diskRate),
        goal: { text: `>= ${DOWNLOAD_GOAL} of reading the file`, met: ratio(linkRate, diskRate) >= DOWNLOAD_GOAL },
      },
    ];
    return {
      scenario: 'results',
      title: `A stored result of ${ctx.rows.toLocaleString('en-US')} rows as parquet chunks from DuckDB`,
      method: [
        `A real origin process with \`SLUICE_RESULT_DIR\` in the bench's folder: \`POST /results\` with \`select * from ${DUCK_TABLE}\`, \`format: parquet\`, \`chunk_rows: ${CHUNK_ROWS}\`, timed from the POST to the poll (every 50 ms) that finds it succeeded, every chunk renamed into place.`,
        `Baseline: DuckDB's own \`COPY (SELECT * FROM ${DUCK_TABLE}) TO 'file.parquet'\` in the bench process (one file; DuckDB defaults, threads = cores).`,
        `Baseline and origin runs alternate (${ctx.runs} each); medians for rates, the maximum for memory, read as in stream-csv. The store is on PostgreSQL.`,
        `Then the same with a second origin whose \`SLUICE_RESULT_DESTINATION\` is a destination at the S3 server of export-s3 (s3rver behind the SigV4-checking proxy, a process of its own); baseline: DuckDB's COPY then one \`lib-storage\` upload of the file, as in export-s3.`,
        `Then the first result's chunk 0 (${(fetched[0]!.bytes / 2 ** 20).toFixed(1)} MiB) through its signed link, against \`fs.createReadStream\` of the same file in the bench process, read with \`node:http\` as a downloader such as curl reads it (\`fetch\`'s web streams cost the bench process more than the origin's serving), alternated ${fetched.length} times once the results' files are written back to disk (\`sync\`), after one untimed read of each (both from the page cache).`,
      ],
      figures,
      notes: [
        `DuckDB writes the chunks itself (ADR 0030): files of about ${CHUNK_ROWS.toLocaleString('en-US')} rows, cut where a row group ends (chunk rows: ${both.target[0]!.chunks.map((c) => c.rows.toLocaleString('en-US')).join(', ')}).`,
        'The origin and the bench process share the machine\'s cores; the baseline has them to itself.',
      ],
      samples: { ...both, bucket, downloads: fetched },
    };
  },
};
