import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type Server as HttpServer, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startLocalEdge } from '../../edge/local/miniflare.ts';
import type { Scenario } from '../lib/context.ts';
import { LOOKUP_TABLE, pgConnectionFields } from '../lib/dataset.ts';
import { loadTest, warmUp, type LoadResult } from '../lib/load.ts';
import { startBenchOrigin } from '../lib/origin.ts';
import type { Figure } from '../lib/report.ts';
import { median, ratio } from '../lib/stats.ts';

const ID = 4242;
const HITS = 1000;
const CONNECTION = 'bench_pg';
const QUERY = 'lookup_edge';

/** An HTTP proxy in front of the origin that counts every request reaching it. */
function countingProxy(): { server: HttpServer; count: () => number; target: (port: number) => void } {
  let port = 0;
  let count = 0;
  const server = createServer((req, res) => {
    count++;
    const upstream = request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  return { server, count: () => count, target: (p) => (port = p) };
}

async function waitForLine(file: string, text: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!readFileSync(file, 'utf8').includes(text)) {
    if (Date.now() > deadline) throw new Error(`no "${text}" in ${file}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function call(url: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(url, init);
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`);
  return res;
}

const medianOf = (results: LoadResult[], pick: (r: LoadResult) => number) => median(results.map(pick));

/**
 * A cached `GET /q/<name>` answered by the edge Worker (workerd through
 * Miniflare) against the same request answered by the origin from its own
 * cache, and what 1,000 edge hits cost the origin.
 */
export const edgeCache: Scenario = {
  name: 'edge-cache',
  async run(ctx) {
    await ctx.pgReady();
    const secret = randomBytes(32).toString('hex');
    const proxy = countingProxy();
    await new Promise<void>((r) => proxy.server.listen(0, '127.0.0.1', r));
    const proxyUrl = `http://127.0.0.1:${(proxy.server.address() as AddressInfo).port}`;
    const edge = await startLocalEdge({ originUrl: proxyUrl, secret });
    const origin = await startBenchOrigin(ctx.workDir, 'edge', { env: { SLUICE_EDGE_URL: edge.url, SLUICE_EDGE_SECRET: secret }, store: 'embedded' });
    const samples: Record<string, { edge: LoadResult[]; origin: LoadResult[] }> = {};
    let reached: number;
    try {
      proxy.target(Number(new URL(origin.url).port));
      await waitForLine(origin.logFile, 'edge replica in sync');
      await origin.addConnection({ name: CONNECTION, ...pgConnectionFields(ctx.pgUrl) });
      await call(`${origin.url}/api/v1/queries`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          name: QUERY,
          sql: `select * from ${LOOKUP_TABLE} where id = :id`,
          parameters: { id: { type: 'integer', min: 1 } },
          connection_name: CONNECTION,
          cache_ttl: 3600,
          publish: true,
        }),
      });
      const path = `/q/${QUERY}?id=${ID}`;
      const first = await call(edge.url + path);
      ctx.log(`  first request through the edge: X-Cache ${first.headers.get('x-cache')}`);
      await first.arrayBuffer();

      const before = proxy.count();
      for (let i = 0; i < HITS; i++) {
        const res = await call(edge.url + path);
        await res.arrayBuffer();
        if (res.headers.get('x-cache') !== 'HIT') throw new Error(`edge request ${i}: X-Cache ${res.headers.get('x-cache')}`);
      }
      reached = proxy.count() - before;
      ctx.log(`  ${HITS} edge hits: ${reached} requests reached the origin`);

      for (const connections of [1, 32]) {
        const label = `cached hit, concurrency ${connections}`;
        const edgeTarget = { url: edge.url + path };
        const originTarget = { url: origin.url + path };
        await warmUp(edgeTarget, connections);
        await warmUp(originTarget, connections);
        const rounds = { edge: [] as LoadResult[], origin: [] as LoadResult[] };
        for (let round = 0; round < ctx.runs; round++) {
          const e = await loadTest(edgeTarget, connections, ctx.seconds);
          const o = await loadTest(originTarget, connections, ctx.seconds);
          for (const [who, r] of [['edge', e], ['origin', o]] as const) {
            ctx.log(`  ${label}, ${who}: ${Math.round(r.requestsPerSecond)} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, failures ${r.failures}`);
            if (r.failures > 0) throw new Error(`${label}: ${r.failures} failed requests against the ${who}`);
          }
          rounds.edge.push(e);
          rounds.origin.push(o);
        }
        samples[label] = rounds;
      }
    } finally {
      await origin.stop();
      await edge.stop();
      await new Promise((r) => proxy.server.close(r));
    }

    const figures: Figure[] = [
      {
        name: `origin requests per ${HITS} edge hits`,
        value: reached,
        unit: 'requests',
        baselineName: 'edge hits',
        baseline: HITS,
        ratio: ratio(reached, HITS),
        goal: { text: '0', met: reached === 0 },
      },
    ];
    for (const [label, rounds] of Object.entries(samples)) {
      for (const [what, unit, pick] of [
        ['requests/s', 'req/s', (r: LoadResult) => r.requestsPerSecond],
        ['p50 latency', 'ms', (r: LoadResult) => r.p50Ms],
        ['p99 latency', 'ms', (r: LoadResult) => r.p99Ms],
      ] as const) {
        const value = medianOf(rounds.edge, pick);
        const baseline = medianOf(rounds.origin, pick);
        figures.push({ name: `${label}: ${what}`, value, unit, baselineName: 'origin, cached', baseline, ratio: ratio(value, baseline) });
      }
    }
    return {
      scenario: 'edge-cache',
      title: 'The edge Worker in Miniflare: a cached GET /q/<name> answered at the edge, against the origin answering it from its own cache',
      method: [
        `A saved query \`select * from ${LOOKUP_TABLE} where id = :id\` on PostgreSQL with \`cache_ttl\` 3600; \`GET /q/${QUERY}?id=${ID}\` (no API key).`,
        'The edge: the Worker as `wrangler deploy --dry-run` bundles it, on workerd through Miniflare (edge/local/miniflare.ts), forwarding to the origin through a counting proxy; the origin pushes its replica to it (SLUICE_EDGE_URL).',
        `Origin requests per ${HITS} hits: one request through the edge to fill its cache, then ${HITS} sequential requests, each checked to be \`X-Cache: HIT\`, counting what reached the proxy.`,
        `Rates: autocannon in the bench process on the same cores, a 2 s warm-up of each, then ${ctx.runs} rounds of ${ctx.seconds} s against the edge and then the origin (cached there too); medians of the rounds. Miniflare is a local simulator: on Cloudflare the hit is answered in the data centre nearest the client, which no local figure shows.`,
      ],
      figures,
      notes: [],
      samples,
    };
  },
};
