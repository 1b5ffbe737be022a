import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BenchContext, Scenario } from '../lib/context.ts';
import { cpuMs } from '../lib/cpu.ts';
import { LOOKUP_TABLE, pgConnectionFields } from '../lib/dataset.ts';
import { loadTest, warmUp, type LoadResult, type LoadTarget } from '../lib/load.ts';
import { startBenchOrigin, type BenchOrigin } from '../lib/origin.ts';
import type { Figure } from '../lib/report.ts';
import { median, ratio } from '../lib/stats.ts';
import { PG_CONNECTION, compare, comparisonFigures, startPair, type Comparison } from '../lib/versus.ts';

const RATE_GOAL = 0.7;
/** Tracing every request may cost at most a tenth of the requests/s (docs/reference/tracing.md). */
const TRACED_GOAL = 0.9;
const ID = 4242;
/** Rounds of each origin, alternated; short, so that many fit and a slow spell of the machine falls on one pair of rounds. */
const ALTERNATIONS = 10;
const ROUND_SECONDS = 3;
/**
 * Each origin's warm-up before the alternations, at 32 connections whatever
 * the measured concurrency (at 1, ten seconds are too few requests): a traced
 * origin runs more code, which V8 takes longer to optimise (its first
 * seconds cost up to twice the CPU a request of its later ones), and an
 * origin serves for days.
 */
const WARM_UP_SECONDS = 10;
const WARM_UP_CONNECTIONS = 32;

/** The origins set against each other: tracing off first, then every trace kept, then one in ten. */
const VARIANTS = [
  { label: 'tracing off', env: {} },
  { label: 'every trace', env: { OTEL_TRACES_SAMPLER: 'always_on' } },
  { label: 'one trace in ten', env: { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' } },
] as const;

/** An OTLP/HTTP receiver that reads each export whole and drops it, counting the bytes. */
async function otlpSink(): Promise<{ url: string; bytes: () => number; stop(): Promise<void> }> {
  let bytes = 0;
  const server: Server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bytes: () => bytes,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface Round {
  label: string;
  load: LoadResult;
  /** The origin's CPU time per request in the round. */
  cpuMsPerRequest: number;
}

/**
 * The three origins under the same load, in turn, ALTERNATIONS times, the
 * order rotated each time so that none always follows another: each
 * traced round is set against the untraced round of its own alternation.
 */
async function alternate(ctx: BenchContext, origins: BenchOrigin[], target: (origin: BenchOrigin) => LoadTarget, connections: number): Promise<Round[][]> {
  for (const origin of origins) await warmUp(target(origin), WARM_UP_CONNECTIONS, WARM_UP_SECONDS);
  const alternations: Round[][] = [];
  for (let turn = 0; turn < ALTERNATIONS; turn++) {
    const rounds: Round[] = [];
    for (let step = 0; step < origins.length; step++) {
      const at = (turn + step) % origins.length;
      const origin = origins[at]!;
      const before = cpuMs(origin.pid);
      const load = await loadTest(target(origin), connections, ROUND_SECONDS);
      if (load.failures > 0) throw new Error(`${VARIANTS[at]!.label}: ${load.failures} failed requests`);
      rounds[at] = { label: VARIANTS[at]!.label, load, cpuMsPerRequest: (cpuMs(origin.pid) - before) / load.requests };
    }
    ctx.log(`  concurrency ${connections}: ${rounds.map((r) => `${r.label} ${Math.round(r.load.requestsPerSecond)} req/s ${r.cpuMsPerRequest.toFixed(3)} ms CPU`).join(', ')}`);
    alternations.push(rounds);
  }
  return alternations;
}

/** What tracing keeps of the untraced origin's requests/s and costs in CPU a request, at one concurrency. */
function keptFigures(connections: number, alternations: Round[][]): Figure[] {
  return VARIANTS.slice(1).flatMap(({ label }, i) => {
    const at = i + 1;
    const kept = median(alternations.map((rounds) => rounds[at]!.load.requestsPerSecond / rounds[0]!.load.requestsPerSecond));
    const cpu = median(alternations.map((rounds) => rounds[at]!.cpuMsPerRequest));
    const cpuOff = median(alternations.map((rounds) => rounds[0]!.cpuMsPerRequest));
    const name = `postgres, tracing on, ${label}, concurrency ${connections}`;
    return [
      {
        name: `${name}: requests/s kept`,
        value: median(alternations.map((rounds) => rounds[at]!.load.requestsPerSecond)),
        unit: 'req/s',
        baselineName: 'tracing off (median of each alternation\'s ratio)',
        baseline: median(alternations.map((rounds) => rounds[0]!.load.requestsPerSecond)),
        ratio: ratio(kept, 1),
        ...(at === 1 ? { goal: { text: `>= ${TRACED_GOAL} of tracing off`, met: kept >= TRACED_GOAL } } : {}),
      },
      { name: `${name}: CPU per request`, value: cpu, unit: 'ms', baselineName: 'tracing off', baseline: cpuOff, ratio: ratio(cpu, cpuOff) },
    ];
  });
}

/**
 * What tracing costs the one-row lookup of `small-query` on PostgreSQL: an
 * origin without the OpenTelemetry variables, one tracing every request and
 * one keeping a trace in ten, each exporting protobuf to a receiver on
 * loopback. The untraced origin is held against the bare route; the traced
 * ones against the untraced one, directly, which is the issue's measure.
 */
export const tracing: Scenario = {
  name: 'tracing',
  async run(ctx) {
    const sink = await otlpSink();
    const pair = await startPair(ctx, 'tracing');
    const origins: BenchOrigin[] = [pair.origin];
    const comparisons: Comparison[] = [];
    const alternations: Record<number, Round[][]> = {};
    try {
      for (const { env } of VARIANTS.slice(1)) {
        const origin = await startBenchOrigin(ctx.workDir, `tracing-${origins.length}`, {
          env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_BSP_SCHEDULE_DELAY: '1000', ...env },
          store: 'embedded',
        });
        origins.push(origin);
        await origin.addConnection({ name: PG_CONNECTION, ...pgConnectionFields(ctx.pgUrl) });
      }
      const body = { sql: `select * from ${LOOKUP_TABLE} where id = :id`, params: { id: ID }, connection_name: PG_CONNECTION };
      const bare = { url: `${pair.bare.url}/small/postgres`, body: { id: ID } };
      for (const connections of [1, 32]) {
        comparisons.push(await compare(ctx, `postgres, tracing off, concurrency ${connections}`, { url: `${pair.origin.url}/execute_sql`, body }, bare, connections));
        alternations[connections] = await alternate(ctx, origins, (origin) => ({ url: `${origin.url}/execute_sql`, body }), connections);
      }
    } finally {
      await Promise.all([pair.stop(), ...origins.slice(1).map((origin) => origin.stop())]);
      await sink.stop();
    }
    const figures: Figure[] = [
      ...comparisons.flatMap((c) => comparisonFigures(c, RATE_GOAL)),
      ...[1, 32].flatMap((connections) => keptFigures(connections, alternations[connections]!)),
    ];
    return {
      scenario: 'tracing',
      title: 'What tracing costs a one-row lookup: POST /execute_sql with tracing off and on',
      method: [
        `\`POST /execute_sql\` with \`select * from ${LOOKUP_TABLE} where id = :id\` (${ID}; a 10,000-row table with a primary key) on PostgreSQL, no API key, access log at info into a file, at 1 and 32 connections, on three origins: no OpenTelemetry variables; ${VARIANTS.slice(1).map((t) => `${t.label} (${JSON.stringify(t.env)})`).join('; ')}. The traced ones export OTLP/HTTP protobuf in batches (OTEL_BSP_SCHEDULE_DELAY=1000) to a receiver in the bench process that reads and drops each export (${Math.round(sink.bytes() / 1024)} KiB received in all).`,
        `Tracing off against the bare route of \`small-query\` (\`bench/bare-server.ts\`, the same driver call with nothing else): a 2 s warm-up of each, then ${ctx.runs} rounds of ${ctx.seconds} s against the origin and then the bare route; medians of the rounds.`,
        `Tracing on against tracing off: the three origins in turn, ${ROUND_SECONDS} s each, ${ALTERNATIONS} times, the order rotated each time, after a ${WARM_UP_SECONDS} s warm-up of each at ${WARM_UP_CONNECTIONS} connections (a traced origin takes longer to reach its steady state). "Requests/s kept" is the median over the alternations of a traced round's requests/s divided by the untraced round's of the same alternation; its value and baseline columns are the medians of the rounds. "CPU per request" is the origin process's user and system time (all threads, from /proc) over the requests it answered in the round; medians.`,
        'autocannon in the bench process on the same cores.',
      ],
      figures,
      notes: [],
      samples: { comparisons, alternations, exportedBytes: sink.bytes() },
    };
  },
};
