import type { Scenario } from '../lib/context.ts';
import { DUCK_TABLE, pgRowsSql } from '../lib/dataset.ts';
import type { Figure } from '../lib/report.ts';
import { DUCK_CONNECTION, PG_CONNECTION, compare, comparisonFigures, startPair, type Comparison } from '../lib/versus.ts';

const PAGE = 1000;

/** A 1,000-row page as JSON, against the same rows through a bare `JSON.stringify`. */
export const pagedJson: Scenario = {
  name: 'paged-json',
  async run(ctx) {
    const pair = await startPair(ctx, 'paged');
    const cases = [
      // The origin pages the whole table (LIMIT 1001 pushed into the SQL); the bare route asks for the 1,000 rows.
      { db: 'duckdb', connection: DUCK_CONNECTION, sql: `select * from ${DUCK_TABLE}`, bareSql: `select * from ${DUCK_TABLE} limit ${PAGE}` },
      { db: 'postgres', connection: PG_CONNECTION, sql: pgRowsSql(PAGE), bareSql: pgRowsSql(PAGE) },
    ];
    const comparisons: Comparison[] = [];
    try {
      for (const c of cases) {
        for (const connections of [1, 32]) {
          comparisons.push(
            await compare(
              ctx,
              `${c.db}, concurrency ${connections}`,
              { url: `${pair.origin.url}/execute_sql?page_size=${PAGE}`, body: { sql: c.sql, connection_name: c.connection } },
              { url: `${pair.bare.url}/page/${c.db}`, body: { sql: c.bareSql } },
              connections,
            ),
          );
        }
      }
    } finally {
      await pair.stop();
    }
    const figures: Figure[] = comparisons.flatMap((c) => comparisonFigures(c));
    return {
      scenario: 'paged-json',
      title: 'A 1,000-row JSON page against a bare JSON.stringify',
      method: [
        `\`POST /execute_sql?page_size=${PAGE}\` (format json, page 1) of the 6-column rows: DuckDB \`select * from ${DUCK_TABLE}\` (the origin folds the page into the SQL), PostgreSQL the 1,000-row \`generate_series\` select; 1 and 32 connections.`,
        'Baseline: the bare server (see small-query) running the same rows through the same driver and answering `JSON.stringify` of them as objects (bigints as strings, timestamps as their text).',
        `autocannon: a 2 s warm-up of each, then ${ctx.runs} rounds of ${ctx.seconds} s against the origin and then the bare route; medians of the rounds.`,
      ],
      figures,
      notes: [],
      samples: { comparisons },
    };
  },
};
