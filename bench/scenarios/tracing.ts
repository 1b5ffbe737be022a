import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Scenario } from '../lib/context.ts';
import { LOOKUP_TABLE, pgConnectionFields } from '../lib/dataset.ts';
import { startBenchOrigin, type BenchOrigin } from '../lib/origin.ts';
import type { Figure } from '../lib/report.ts';
import { PG_CONNECTION, compare, comparisonFigures, startPair, type Comparison } from '../lib/versus.ts';

const RATE_GOAL = 0.7;
/** Tracing every request may cost at most a tenth of the requests/s (docs/reference/tracing.md). */
const TRACED_GOAL = 0.9;
const ID = 4242;

/** The traced origins: every trace kept, and one in ten. */
const TRACED = [
  { label: 'tracing on, every trace', env: { OTEL_TRACES_SAMPLER: 'always_on' } },
  { label: 'tracing on, one trace in ten', env: { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' } },
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

/**
 * What tracing costs the one-row lookup of `small-query` on PostgreSQL: an
 * origin without the OpenTelemetry variables, one tracing every request and
 * one keeping a trace in ten, each exporting protobuf to a receiver on
 * loopback, each against the bare route.
 */
export const tracing: Scenario = {
  name: 'tracing',
  async run(ctx) {
    const sink = await otlpSink();
    const pair = await startPair(ctx, 'tracing');
    const traced: { label: string; origin: BenchOrigin }[] = [];
    const comparisons: Comparison[] = [];
    try {
      for (const { label, env } of TRACED) {
        const origin = await startBenchOrigin(ctx.workDir, `tracing-${traced.length}`, {
          env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_BSP_SCHEDULE_DELAY: '1000', ...env },
          store: 'embedded',
        });
        traced.push({ label, origin });
        await origin.addConnection({ name: PG_CONNECTION, ...pgConnectionFields(ctx.pgUrl) });
      }
      const body = { sql: `select * from ${LOOKUP_TABLE} where id = :id`, params: { id: ID }, connection_name: PG_CONNECTION };
      const bare = { url: `${pair.bare.url}/small/postgres`, body: { id: ID } };
      for (const connections of [1, 32]) {
        comparisons.push(await compare(ctx, `postgres, tracing off, concurrency ${connections}`, { url: `${pair.origin.url}/execute_sql`, body }, bare, connections));
        for (const { label, origin } of traced) {
          comparisons.push(await compare(ctx, `postgres, ${label}, concurrency ${connections}`, { url: `${origin.url}/execute_sql`, body }, bare, connections));
        }
      }
    } finally {
      await Promise.all([pair.stop(), ...traced.map(({ origin }) => origin.stop())]);
      await sink.stop();
    }
    const off = comparisons.filter((c) => c.label.includes('tracing off'));
    const figures: Figure[] = comparisons.flatMap((c) => comparisonFigures(c, off.includes(c) ? RATE_GOAL : undefined));
    for (const c of comparisons.filter((c) => !off.includes(c))) {
      const same = off.find((o) => o.origin.connections === c.origin.connections)!;
      // Each against the bare route first; this one sets the traced origin against the untraced one, which is the issue's measure.
      const kept = c.origin.requestsPerSecond / c.bare.requestsPerSecond / (same.origin.requestsPerSecond / same.bare.requestsPerSecond);
      figures.push({
        name: `${c.label}: requests/s kept`,
        value: kept,
        unit: 'ratio',
        baselineName: 'tracing off, same concurrency (each as a share of its own round\'s bare route)',
        baseline: 1,
        ratio: kept,
        ...(c.label.includes('every trace') ? { goal: { text: `>= ${TRACED_GOAL} of tracing off`, met: kept >= TRACED_GOAL } } : {}),
      });
    }
    return {
      scenario: 'tracing',
      title: 'What tracing costs a one-row lookup: POST /execute_sql with tracing off and on, against a bare route',
      method: [
        `\`POST /execute_sql\` with \`select * from ${LOOKUP_TABLE} where id = :id\` (${ID}; a 10,000-row table with a primary key) on PostgreSQL, no API key, access log at info into a file, at 1 and 32 connections, on three origins: no OpenTelemetry variables; ${TRACED.map((t) => `${t.label} (${JSON.stringify(t.env)})`).join('; ')}. The traced ones export OTLP/HTTP protobuf in batches (OTEL_BSP_SCHEDULE_DELAY=1000) to a receiver in the bench process that reads and drops each export (${Math.round(sink.bytes() / 1024)} KiB received in all).`,
        'Baseline: the bare route of `small-query` (`bench/bare-server.ts`), the same driver call with nothing else.',
        `autocannon in the bench process on the same cores: a 2 s warm-up of each, then ${ctx.runs} rounds of ${ctx.seconds} s against the origin and then the bare route; medians of the rounds. "Requests/s kept" divides a traced origin's share of the bare route by the untraced origin's share at the same concurrency.`,
      ],
      figures,
      notes: [],
      samples: { comparisons, exportedBytes: sink.bytes() },
    };
  },
};
