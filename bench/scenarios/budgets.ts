import { randomBytes } from 'node:crypto';
import type { Scenario } from '../lib/context.ts';
import { LOOKUP_TABLE } from '../lib/dataset.ts';
import type { Figure } from '../lib/report.ts';
import { PG_CONNECTION, compare, comparisonFigures, startPair, type Comparison } from '../lib/versus.ts';

const RATE_GOAL = 0.7;
const ID = 4242;

/** The keys measured: none pays anything for a budget it lacks; `max_estimated_rows` pays a planner call, a day budget a store read and write. */
const KEYS = [
  { label: 'key without a budget', budget: null },
  { label: 'key with max_estimated_rows', budget: { max_estimated_rows: 1000 } },
  { label: 'key with rows_per_day and db_seconds_per_day', budget: { rows_per_day: 1e15, db_seconds_per_day: 86_400 } },
] as const;

/**
 * What a budget costs a one-row lookup: `POST /execute_sql` with a scoped
 * key of each kind against the bare route making the same driver call
 * (docs/reference/budgets.md).
 */
export const budgets: Scenario = {
  name: 'budgets',
  async run(ctx) {
    const adminKey = randomBytes(24).toString('hex');
    const pair = await startPair(ctx, 'budgets', { SLUICE_API_KEY: adminKey });
    const comparisons: Comparison[] = [];
    try {
      for (const { label, budget } of KEYS) {
        const res = await fetch(`${pair.origin.url}/api/v1/api-keys`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': adminKey },
          body: JSON.stringify({ name: label.replace(/\W+/g, '-'), connections: [PG_CONNECTION], budget }),
        });
        if (res.status !== 201) throw new Error(`creating the ${label}: ${res.status} ${await res.text()}`);
        const { secret } = (await res.json()) as { secret: string };
        for (const connections of [1, 32]) {
          comparisons.push(
            await compare(
              ctx,
              `postgres, ${label}, concurrency ${connections}`,
              {
                url: `${pair.origin.url}/execute_sql`,
                headers: { 'x-api-key': secret },
                body: { sql: `select * from ${LOOKUP_TABLE} where id = :id`, params: { id: ID }, connection_name: PG_CONNECTION },
              },
              { url: `${pair.bare.url}/small/postgres`, body: { id: ID } },
              connections,
            ),
          );
        }
      }
    } finally {
      await pair.stop();
    }
    const plain = comparisons.filter((c) => c.label.includes(KEYS[0].label));
    const figures: Figure[] = comparisons.flatMap((c) => comparisonFigures(c, plain.includes(c) ? RATE_GOAL : undefined));
    for (const c of comparisons.filter((c) => !plain.includes(c))) {
      const same = plain.find((p) => p.origin.connections === c.origin.connections)!;
      figures.push({
        name: `${c.label}: p50 latency added`,
        value: c.origin.p50Ms - same.origin.p50Ms,
        unit: 'ms',
        baselineName: 'the key without a budget, same concurrency',
        baseline: same.origin.p50Ms,
        ratio: c.origin.requestsPerSecond / same.origin.requestsPerSecond,
      });
    }
    return {
      scenario: 'budgets',
      title: 'What a budget costs a one-row lookup: POST /execute_sql with scoped keys against a bare route',
      method: [
        `\`POST /execute_sql\` with \`select * from ${LOOKUP_TABLE} where id = :id\` (${ID}; a 10,000-row table with a primary key) on PostgreSQL, authentication on, with three scoped keys: ${KEYS.map((k) => `${k.label} (${JSON.stringify(k.budget)})`).join('; ')}; at 1 and 32 connections. Access log at info into a file.`,
        'Baseline: the bare route of `small-query` (`bench/bare-server.ts`), the same driver call with no key, no grants and no budget.',
        `autocannon in the bench process on the same cores: a 2 s warm-up of each, then ${ctx.runs} rounds of ${ctx.seconds} s against the origin and then the bare route; medians of the rounds. The "latency added" figures set each budgeted key against the key without one at the same concurrency (ratio: their requests/s).`,
      ],
      figures,
      notes: [],
      samples: { comparisons },
    };
  },
};
