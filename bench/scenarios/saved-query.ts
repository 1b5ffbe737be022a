import type { Scenario } from '../lib/context.ts';
import { LOOKUP_TABLE } from '../lib/dataset.ts';
import type { Figure } from '../lib/report.ts';
import { ratio } from '../lib/stats.ts';
import { DUCK_CONNECTION, PG_CONNECTION, compare, comparisonFigures, startPair, type Comparison } from '../lib/versus.ts';

const RATE_GOAL = 0.7;
const ID = 4242;

async function saveQuery(originUrl: string, name: string, connection: string, cacheTtl: number | null): Promise<void> {
  const res = await fetch(`${originUrl}/api/v1/queries`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      name,
      sql: `select * from ${LOOKUP_TABLE} where id = :id`,
      parameters: { id: { type: 'integer', min: 1 } },
      connection_name: connection,
      cache_ttl: cacheTtl,
      publish: true,
    }),
  });
  if (res.status !== 201) throw new Error(`saving ${name}: ${res.status} ${await res.text()}`);
}

/** `GET /q/<name>?id=...` one-row lookups, uncached and cached, against a bare route making the same driver call. */
export const savedQuery: Scenario = {
  name: 'saved-query',
  async run(ctx) {
    const pair = await startPair(ctx, 'saved');
    const uncached: Comparison[] = [];
    const cached: Comparison[] = [];
    try {
      for (const [db, connection] of [['duckdb', DUCK_CONNECTION], ['postgres', PG_CONNECTION]] as const) {
        await saveQuery(pair.origin.url, `lookup_${db}`, connection, null);
        await saveQuery(pair.origin.url, `lookup_${db}_cached`, connection, 3600);
        const bare = { url: `${pair.bare.url}/small/${db}`, body: { id: ID } };
        for (const connections of [1, 32]) {
          const label = `${db}, concurrency ${connections}`;
          uncached.push(await compare(ctx, `${label}, uncached`, { url: `${pair.origin.url}/q/lookup_${db}?id=${ID}` }, bare, connections));
          cached.push(await compare(ctx, `${label}, cached`, { url: `${pair.origin.url}/q/lookup_${db}_cached?id=${ID}` }, bare, connections));
        }
      }
    } finally {
      await pair.stop();
    }
    const figures: Figure[] = [
      ...uncached.flatMap((c) => comparisonFigures(c, RATE_GOAL)),
      ...cached.flatMap((c) => {
        const [rate, ...latencies] = comparisonFigures(c);
        const r = ratio(c.origin.requestsPerSecond, c.bare.requestsPerSecond);
        return [{ ...rate, goal: { text: 'a cache hit faster than the bare route (> 1)', met: r > 1 } }, ...latencies];
      }),
    ];
    return {
      scenario: 'saved-query',
      title: 'Saved-query lookups: GET /q/<name> uncached and cached, against a bare route',
      method: [
        `Two saved queries per database, \`select * from ${LOOKUP_TABLE} where id = :id\` with \`id\` an integer parameter (min 1): one with no cache, one with \`cache_ttl\` 3600, both published; \`GET /q/<name>?id=${ID}\` on DuckDB and PostgreSQL at 1 and 32 connections (no API key, access log at info into a file).`,
        "Baseline: the bare route of `bench/bare-server.ts` (its own process): @hono/node-server running the same statement through the project's driver classes and answering `JSON.stringify` of the rows. The cached runs are served from the origin's in-process cache after the warm-up's first request.",
        `autocannon in the bench process on the same cores: a 2 s warm-up of each, then ${ctx.runs} rounds of ${ctx.seconds} s against the origin and then the bare route; medians of the rounds.`,
      ],
      figures,
      notes: [],
      samples: { uncached, cached },
    };
  },
};
