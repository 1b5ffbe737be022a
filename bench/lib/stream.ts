import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { BenchContext } from './context.ts';
import { download, type Download } from './download.ts';
import { ownPeakGrowth, rssMiB, watchPeak } from './memory.ts';
import { startBenchOrigin, type BenchOrigin } from './origin.ts';
import { median } from './stats.ts';

/** One streamed download from the origin, with the origin's memory around it. */
export interface StreamRun extends Download {
  rowsPerSecond: number;
  idleRssMiB: number;
  peakRssMiB: number;
}

/** One `stream=true` download, with the origin's memory around it. */
export async function streamOnce(
  ctx: BenchContext,
  origin: BenchOrigin,
  query: string,
  body: Record<string, unknown>,
  rows: number,
  saveTo?: string,
  endpoint = '/execute_sql',
): Promise<StreamRun> {
  origin.assertAlive();
  const idleRssMiB = rssMiB(origin.pid);
  const watch = watchPeak(origin.pid);
  const got = await download(`${origin.url}${endpoint}?${query}`, body, saveTo).catch((error: unknown) => {
    origin.assertAlive();
    throw error;
  });
  const peakRssMiB = watch.stop();
  origin.assertAlive();
  if (got.status !== 200) throw new Error(`stream answered ${got.status}`);
  const result = { ...got, rowsPerSecond: rows / got.seconds, idleRssMiB, peakRssMiB };
  ctx.log(`  origin: ${Math.round(result.rowsPerSecond).toLocaleString('en-US')} rows/s, ` +
    `${(got.bytes / 2 ** 20).toFixed(0)} MiB, peak RSS ${peakRssMiB.toFixed(0)} MiB (idle ${idleRssMiB.toFixed(0)})`);
  return result;
}

export interface CopyRun {
  /** The file COPY wrote (the same path each run). */
  file: string;
  seconds: number;
  rowsPerSecond: number;
  /** RSS growth of the bench process during the COPY. */
  growthMiB: number;
}

/**
 * DuckDB's own `COPY (SELECT * FROM table) TO file`, in this process, with
 * DuckDB's default settings (threads = cores), on the same file the origin
 * reads: the engine's best rate on this machine.
 */
export async function duckCopyOnce(ctx: BenchContext, table: string, format: 'csv' | 'parquet', rows: number): Promise<CopyRun> {
  const instance = await DuckDBInstance.create(await ctx.duckFile(), { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  const out = join(ctx.workDir, `baseline.${format}`);
  const options = format === 'csv' ? '(FORMAT csv, HEADER)' : '(FORMAT parquet)';
  try {
    const started = performance.now();
    const { growthMiB } = await ownPeakGrowth(() => connection.run(`COPY (SELECT * FROM ${table}) TO '${out}' ${options}`));
    const seconds = (performance.now() - started) / 1000;
    ctx.log(`  DuckDB COPY ${format}: ${Math.round(rows / seconds).toLocaleString('en-US')} rows/s`);
    return { file: out, seconds, rowsPerSecond: rows / seconds, growthMiB };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/**
 * `runs` rounds of baseline then target, interleaved, so a change in the
 * machine's load (other processes) falls on both alike.
 */
export async function interleaved<A, B>(runs: number, baseline: (run: number) => Promise<A>, target: (run: number) => Promise<B>): Promise<{ baseline: A[]; target: B[] }> {
  const out = { baseline: [] as A[], target: [] as B[] };
  for (let run = 0; run < runs; run++) {
    out.baseline.push(await baseline(run));
    out.target.push(await target(run));
  }
  return out;
}

export const medianOf = <T>(items: T[], pick: (item: T) => number) => median(items.map(pick));

/**
 * Idle RSS of an origin on the embedded store (PGlite): right after its first
 * start (which creates the store) and after a restart on the same data dir.
 */
export async function embeddedStoreIdle(ctx: BenchContext): Promise<{ firstStartMiB: number; restartMiB: number }> {
  const settle = () => new Promise((r) => setTimeout(r, 1000));
  const first = await startBenchOrigin(ctx.workDir, 'embedded-idle', { store: 'embedded' });
  await settle();
  const firstStartMiB = rssMiB(first.pid);
  await first.stop();
  const again = await startBenchOrigin(ctx.workDir, 'embedded-idle', { store: 'embedded' });
  await settle();
  const restartMiB = rssMiB(again.pid);
  await again.stop();
  return { firstStartMiB, restartMiB };
}

/**
 * An origin for a streaming scenario: the store on PostgreSQL (so its memory
 * is the stream's) and no statement time limit (the default 30 s would cut a
 * slow export short; a stream's limit covers the whole download).
 */
export function startStreamOrigin(ctx: BenchContext, name: string, env: Record<string, string>): Promise<BenchOrigin> {
  return startBenchOrigin(ctx.workDir, name, { env: { SLUICE_QUERY_TIMEOUT: '0', ...env }, store: { serverUrl: ctx.pgUrl } });
}
