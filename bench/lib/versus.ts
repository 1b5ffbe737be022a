import { join } from 'node:path';
import type { BenchContext } from './context.ts';
import { pgConnectionFields } from './dataset.ts';
import { loadTest, warmUp, type LoadResult, type LoadTarget } from './load.ts';
import { startBenchOrigin, type BenchOrigin } from './origin.ts';
import { startServer, type Server } from './process.ts';
import type { Figure } from './report.ts';
import { median, ratio } from './stats.ts';

/** The origin and the bare baseline server, both up, both reading the same DuckDB file and PostgreSQL. */
export interface Pair {
  origin: BenchOrigin;
  bare: Server;
  stop(): Promise<void>;
}

export const DUCK_CONNECTION = 'bench_duck';
export const PG_CONNECTION = 'bench_pg';

export async function startPair(ctx: BenchContext, name: string, originEnv: Record<string, string> = {}): Promise<Pair> {
  const file = await ctx.duckFile();
  await ctx.pgReady();
  const origin = await startBenchOrigin(ctx.workDir, name, { env: originEnv, store: 'embedded' });
  let bare: Server;
  try {
    await origin.addConnection({ name: DUCK_CONNECTION, db: 'duckdb', database: file });
    await origin.addConnection({ name: PG_CONNECTION, ...pgConnectionFields(ctx.pgUrl) });
    bare = await startServer('bench/bare-server.ts', { TZ: 'Europe/Paris', BENCH_DUCK_FILE: file, BENCH_PG_URL: ctx.pgUrl }, join(ctx.workDir, `${name}-bare.log`));
  } catch (error) {
    await origin.stop();
    throw error;
  }
  return {
    origin,
    bare,
    stop: async () => {
      await Promise.all([origin.stop(), bare.stop()]);
    },
  };
}

export interface Comparison {
  label: string;
  /** Medians over the rounds. */
  origin: LoadResult;
  bare: LoadResult;
  rounds: { origin: LoadResult; bare: LoadResult }[];
}

function medianResult(results: LoadResult[]): LoadResult {
  const m = (pick: (r: LoadResult) => number) => median(results.map(pick));
  return {
    ...results[0],
    requestsPerSecond: m((r) => r.requestsPerSecond),
    p50Ms: m((r) => r.p50Ms),
    p99Ms: m((r) => r.p99Ms),
    failures: results.reduce((n, r) => n + r.failures, 0),
    requests: results.reduce((n, r) => n + r.requests, 0),
  };
}

/**
 * The origin and the bare route under the same load: both warmed up, then
 * `ctx.runs` rounds of origin-then-bare, so a change in the machine's load
 * falls on both alike; medians of the rounds.
 */
export async function compare(ctx: BenchContext, label: string, origin: LoadTarget, bare: LoadTarget, connections: number): Promise<Comparison> {
  await warmUp(origin, connections);
  await warmUp(bare, connections);
  const rounds: Comparison['rounds'] = [];
  for (let round = 0; round < ctx.runs; round++) {
    const o = await loadTest(origin, connections, ctx.seconds);
    const b = await loadTest(bare, connections, ctx.seconds);
    for (const [who, r] of [['origin', o], ['bare', b]] as const) {
      ctx.log(`  ${label}, ${who}: ${Math.round(r.requestsPerSecond)} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, failures ${r.failures}`);
      if (r.failures > 0) throw new Error(`${label}: ${r.failures} failed requests against the ${who}`);
    }
    rounds.push({ origin: o, bare: b });
  }
  return { label, origin: medianResult(rounds.map((r) => r.origin)), bare: medianResult(rounds.map((r) => r.bare)), rounds };
}

/** Requests/s (with a goal when given), p50 and p99 of a comparison, each against the bare route. */
export function comparisonFigures(c: Comparison, rateGoal?: number): Figure[] {
  const rps = ratio(c.origin.requestsPerSecond, c.bare.requestsPerSecond);
  return [
    {
      name: `${c.label}: requests/s`,
      value: c.origin.requestsPerSecond,
      unit: 'req/s',
      baselineName: 'bare route',
      baseline: c.bare.requestsPerSecond,
      ratio: rps,
      ...(rateGoal === undefined ? {} : { goal: { text: `>= ${rateGoal} of the bare route`, met: rps >= rateGoal } }),
    },
    { name: `${c.label}: p50 latency`, value: c.origin.p50Ms, unit: 'ms', baselineName: 'bare route', baseline: c.bare.p50Ms, ratio: ratio(c.origin.p50Ms, c.bare.p50Ms) },
    { name: `${c.label}: p99 latency`, value: c.origin.p99Ms, unit: 'ms', baselineName: 'bare route', baseline: c.bare.p99Ms, ratio: ratio(c.origin.p99Ms, c.bare.p99Ms) },
  ];
}
