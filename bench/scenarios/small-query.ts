import type { Scenario } from '../lib/context.ts';
import { LOOKUP_TABLE } from '../lib/dataset.ts';
import type { Figure } from '../lib/report.ts';
import { DUCK_CONNECTION, PG_CONNECTION, compare, comparisonFigures, startPair, type Comparison } from '../lib/versus.ts';

const RATE_GOAL = 0.7;
const ID = 4242;

/** A one-row primary-key lookup through `POST /execute_sql`, against a bare Hono route making the same driver call. */
export const smallQuery: Scenario = {
  name: 'small-query',
  async run(ctx) {
    const pair = await startPair(ctx, 'small');
    const comparisons: Comparison[] = [];
    try {
      for (const [db, connection] of [['duckdb', DUCK_CONNECTION], ['postgres', PG_CONNECTION]] as const) {
        for (const connections of [1, 32]) {
          comparisons.push(
            await compare(
              ctx,
              `${db}, concurrency ${connections}`,
              {
                url: `${pair.origin.url}/execute_sql`,
                body: { sql: `select * from ${LOOKUP_TABLE} where id = :id`, params: { id: ID }, connection_name: connection },
              },
              { url: `${pair.bare.url}/small/${db}`, body: { id: ID } },
              connections,
            ),
          );
        }
      }
    } finally {
      await pair.stop();
    }
    const figures: Figure[] = comparisons.flatMap((c) => comparisonFigures(c, RATE_GOAL));
    return {
      scenario: 'small-query',
      title: 'One-row lookups: POST /execute_sql against a bare route',
      method: [
        `\`POST /execute_sql\` with \`select * from ${LOOKUP_TABLE} where id = :id\` (${ID}; a 10,000-row table with a primary key) on DuckDB and PostgreSQL, default settings (no API key, access log at info into a file), at 1 and 32 connections.`,
        'Baseline: a separate small server (`bench/bare-server.ts`, its own process like the origin): @hono/node-server, one route running the same statement through the project\'s driver classes (same pool settings), answering `JSON.stringify` of the rows.',
        `autocannon in the bench process on the same cores: a 2 s warm-up of each, then ${ctx.runs} rounds of ${ctx.seconds} s against the origin and then the bare route; medians of the rounds.`,
      ],
      figures,
      notes: [],
      samples: { comparisons },
    };
  },
};
