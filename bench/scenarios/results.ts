import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import type { BenchContext, Scenario } from '../lib/context.ts';
import { DUCK_TABLE } from '../lib/dataset.ts';
import { rssMiB, watchPeak } from '../lib/memory.ts';
import type { BenchOrigin } from '../lib/origin.ts';
import type { Figure } from '../lib/report.ts';
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
async function resultOnce(ctx: BenchContext, origin: BenchOrigin, rows: number): Promise<ResultRun> {
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
  ctx.log(`  origin result: ${Math.round(run.rowsPerSecond).toLocaleString('en-US')} rows/s, ${run.chunks.length} chunks, peak RSS ${peakRssMiB.toFixed(0)} MiB (idle ${idleRssMiB.toFixed(0)})`);
  return run;
}

/** MiB/s of reading a body to its end. */
async function rateOf(read: () => AsyncIterable<Uint8Array>): Promise<{ bytes: number; mibps: number }> {
  const started = performance.now();
  let bytes = 0;
  for await (const chunk of read()) bytes += chunk.byteLength;
  return { bytes, mibps: bytes / 2 ** 20 / ((performance.now() - started) / 1000) };
}

/** The first chunk through its link, against Node reading the same file from the origin's folder; alternated, `runs` times each. */
async function downloads(ctx: BenchContext, url: string, path: string): Promise<DownloadRun[]> {
  const out: DownloadRun[] = [];
  for (let run = 0; run < ctx.runs; run++) {
    const link = await rateOf(async function* () {
      const res = await fetch(url);
      if (res.status !== 200) throw new Error(`chunk link: ${res.status}`);
      yield* res.body as unknown as AsyncIterable<Uint8Array>;
    });
    const disk = await rateOf(() => createReadStream(path));
    if (link.bytes !== disk.bytes) throw new Error(`the link gave ${link.bytes} bytes, the file has ${disk.bytes}`);
    ctx.log(`  chunk 0: link ${link.mibps.toFixed(0)} MiB/s, disk ${disk.mibps.toFixed(0)} MiB/s`);
    out.push({ bytes: link.bytes, linkMiBps: link.mibps, diskMiBps: disk.mibps });
  }
  return out;
}

/** Stored results: the whole table written as parquet chunks to the origin's folder, then a chunk downloaded through its signed link. */
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
        () => resultOnce(ctx, origin, ctx.rows),
      );
      const first = both.target[0]!;
      fetched = await downloads(ctx, first.chunks[0]!.url, join(folder, first.id, '0.parquet'));
    } finally {
      await origin.stop();
    }
    const runs = both.target;
    const rate = medianOf(runs, (r) => r.rowsPerSecond);
    const baseRate = medianOf(both.baseline, (c) => c.rowsPerSecond);
    const peak = Math.max(...runs.map((r) => r.peakRssMiB));
    const linkRate = medianOf(fetched, (d) => d.linkMiBps);
    const diskRate = medianOf(fetched, (d) => d.diskMiBps);
    const figures: Figure[] = [
      {
        name: 'throughput, parquet chunks to a local folder',
        value: rate,
        unit: 'rows/s',
        baselineName: 'DuckDB COPY TO parquet',
        baseline: baseRate,
        ratio: ratio(rate, baseRate),
        goal: { text: `>= ${RATE_GOAL} of DuckDB's rate`, met: ratio(rate, baseRate) >= RATE_GOAL },
      },
      {
        name: 'origin peak RSS',
        value: peak,
        unit: 'MiB',
        baselineName: 'origin idle RSS before the first result',
        baseline: runs[0]!.idleRssMiB,
        ratio: ratio(peak, runs[0]!.idleRssMiB),
        goal: { text: `<= ${RSS_GOAL_MIB} MB`, met: peak <= RSS_GOAL_MIB },
      },
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
        `Then the first result's chunk 0 (${(fetched[0]!.bytes / 2 ** 20).toFixed(1)} MiB) through its signed link, against \`fs.createReadStream\` of the same file in the bench process, alternated ${ctx.runs} times.`,
      ],
      figures,
      notes: [
        'The origin writes parquet chunks with its own writer (the one `stream=true&format=parquet` uses); exports of a whole parquet file from a DuckDB file let DuckDB write it (ADR 0021), which chunks do not yet.',
        'The origin and the bench process share the machine\'s cores; the baseline has them to itself.',
      ],
      samples: { ...both, downloads: fetched },
    };
  },
};
