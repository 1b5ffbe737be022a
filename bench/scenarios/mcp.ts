import type { Scenario } from '../lib/context.ts';
import { LOOKUP_TABLE, pgConnectionFields } from '../lib/dataset.ts';
import { type LoadResult, type LoadTarget, loadTest, warmUp } from '../lib/load.ts';
import { startBenchOrigin } from '../lib/origin.ts';
import type { Figure } from '../lib/report.ts';
import { median, ratio } from '../lib/stats.ts';

const RATE_GOAL = 0.7;
const ID = 4242;
const QUERY = 'lookup_pg';
const CONNECTION = 'bench_pg';
const ACCEPT = 'application/json, text/event-stream';

/** Opens an MCP session the way a client does (initialize, then notifications/initialized) and answers its id. */
async function openSession(url: string): Promise<string> {
  const post = (body: unknown, session?: string) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT, ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' } : {}) },
      body: JSON.stringify(body),
    });
  const init = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
  const session = init.headers.get('mcp-session-id');
  await init.text();
  if (init.status !== 200 || !session) throw new Error(`initialize: ${init.status}`);
  const ready = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session);
  await ready.text();
  if (ready.status !== 202) throw new Error(`notifications/initialized: ${ready.status}`);
  return session;
}

/**
 * `tools/call` of the lookup tool, built for each request: the sessions
 * taken in turn (as many as connections, so each carries about one call at a
 * time, as a client awaiting its answers does), each call with a JSON-RPC id
 * of its own, since MCP forbids reusing an id within a session while a call
 * is in flight (calls a finished load test left in flight still hold theirs).
 */
function toolCalls(url: string, sessions: string[]): LoadTarget {
  let calls = 0;
  return {
    url,
    perRequest: () => {
      calls++;
      return {
        headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-session-id': sessions[calls % sessions.length], 'mcp-protocol-version': '2025-06-18' },
        body: { jsonrpc: '2.0', id: calls, method: 'tools/call', params: { name: QUERY, arguments: { id: ID } } },
      };
    },
  };
}

interface Pairing {
  connections: number;
  mcp: LoadResult;
  q: LoadResult;
  rounds: { mcp: LoadResult; q: LoadResult }[];
}

/** Median of the rounds' own ratios: each round measures both within seconds of each other. */
const roundRatio = (rounds: Pairing['rounds']) => median(rounds.map((r) => ratio(r.mcp.requestsPerSecond, r.q.requestsPerSecond)));

const medianOf = (results: LoadResult[], pick: (r: LoadResult) => number) => median(results.map(pick));

/** A one-row tool call through `/mcp` against `GET /q/<name>` of the same saved query, in the same run. */
export const mcp: Scenario = {
  name: 'mcp',
  async run(ctx) {
    await ctx.pgReady();
    const origin = await startBenchOrigin(ctx.workDir, 'mcp', { store: 'embedded' });
    const pairings: Pairing[] = [];
    try {
      await origin.addConnection({ name: CONNECTION, ...pgConnectionFields(ctx.pgUrl) });
      const saved = await fetch(`${origin.url}/api/v1/queries`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: QUERY, sql: `select * from ${LOOKUP_TABLE} where id = :id`, parameters: { id: { type: 'integer', min: 1 } }, connection_name: CONNECTION, publish: true }),
      });
      if (saved.status !== 201) throw new Error(`saving ${QUERY}: ${saved.status} ${await saved.text()}`);
      // Built the same way as the tool calls, so the load generator spends the same on both.
      const q: LoadTarget = { url: `${origin.url}/q/${QUERY}?id=${ID}`, perRequest: () => ({ method: 'GET', headers: {} }) };
      for (const connections of [1, 32]) {
        /** Two load tests, one after the other, at this concurrency. */
        const inOrder = async (first: LoadTarget, second: LoadTarget): Promise<LoadResult[]> => [
          await loadTest(first, connections, ctx.seconds),
          await loadTest(second, connections, ctx.seconds),
        ];
        const sessions = await Promise.all(Array.from({ length: connections }, () => openSession(`${origin.url}/mcp`)));
        const calls = toolCalls(`${origin.url}/mcp`, sessions);
        await warmUp(calls, connections);
        await warmUp(q, connections);
        const rounds: Pairing['rounds'] = [];
        for (let round = 0; round < ctx.runs; round++) {
          // Alternating which goes first, so a change in the machine's load falls on both alike.
          const [m, g] = round % 2 === 0 ? await inOrder(calls, q) : (await inOrder(q, calls)).reverse();
          for (const [who, r] of [['mcp', m], ['/q', g]] as const) {
            ctx.log(`  concurrency ${connections}, ${who}: ${Math.round(r.requestsPerSecond)} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, failures ${r.failures}`);
            if (r.failures > 0) throw new Error(`concurrency ${connections}: ${r.failures} failed requests against ${who}`);
          }
          rounds.push({ mcp: m, q: g });
        }
        const summary = (pick: 'mcp' | 'q'): LoadResult => {
          const results = rounds.map((r) => r[pick]);
          return { ...results[0], requestsPerSecond: medianOf(results, (r) => r.requestsPerSecond), p50Ms: medianOf(results, (r) => r.p50Ms), p99Ms: medianOf(results, (r) => r.p99Ms) };
        };
        pairings.push({ connections, mcp: summary('mcp'), q: summary('q'), rounds });
      }
    } finally {
      await origin.stop();
    }
    const figures: Figure[] = pairings.flatMap(({ connections, mcp: m, q, rounds }) => {
      const rate = roundRatio(rounds);
      const label = `postgres, concurrency ${connections}`;
      return [
        { name: `${label}: tool calls/s`, value: m.requestsPerSecond, unit: 'req/s', baselineName: 'GET /q', baseline: q.requestsPerSecond, ratio: rate, goal: { text: `>= ${RATE_GOAL} of GET /q`, met: rate >= RATE_GOAL } },
        { name: `${label}: p50 latency`, value: m.p50Ms, unit: 'ms', baselineName: 'GET /q', baseline: q.p50Ms, ratio: ratio(m.p50Ms, q.p50Ms) },
        { name: `${label}: p99 latency`, value: m.p99Ms, unit: 'ms', baselineName: 'GET /q', baseline: q.p99Ms, ratio: ratio(m.p99Ms, q.p99Ms) },
      ];
    });
    return {
      scenario: 'mcp',
      title: 'MCP tool calls against GET /q of the same saved query',
      method: [
        `One saved query on PostgreSQL, \`select * from ${LOOKUP_TABLE} where id = :id\` (\`id\` an integer parameter, min 1, no cache), published; its tool called through \`POST /mcp\` (\`tools/call\` with \`{id: ${ID}}\`, one row back) and the same query through \`GET /q/${QUERY}?id=${ID}\`, at 1 and 32 connections (no API key, access log at info into a file).`,
        'As many MCP sessions as connections (initialize and notifications/initialized made before the load), taken in turn by the calls, each call with a JSON-RPC id of its own; answers are JSON (the transport’s JSON response mode). Both targets give autocannon a request built for each request (its `setupRequest` path), so the load generator, on the same cores, spends about the same on each.',
        `autocannon in the bench process on the same cores: a 2 s warm-up of each, then ${ctx.runs} rounds of ${ctx.seconds} s of each (which goes first alternates); rates and latencies are medians of the rounds, the ratio of the rates the median of the rounds' own ratios.`,
      ],
      figures,
      notes: [],
      samples: { pairings },
    };
  },
};
