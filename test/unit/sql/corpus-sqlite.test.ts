import Database from 'better-sqlite3';
import { afterAll, describe, expect, test } from 'vitest';
import { plan, type PlannedStatement } from '../../../origin/sql/index.ts';
import { GUARD_CORPUS, PROBE_TABLE, WINDOW_EXAMPLES } from './corpus.ts';

/**
 * The shared corpus against a real (in-memory) SQLite, the one database that
 * runs inside the unit suite: reads the guard accepts must run, and window
 * examples are paged the way the engine will (planned text, then skip, take,
 * and one probe row for X-Has-More). Other dialects run the same data in the
 * black-box suite.
 */
const db = new Database(':memory:');
db.exec(`CREATE TABLE ${PROBE_TABLE} (id integer, name text); INSERT INTO ${PROBE_TABLE} VALUES (1, 'a')`);
afterAll(() => db.close());

function runPage(planned: PlannedStatement) {
  const rows = db.prepare(planned.text).raw().all(...planned.values) as unknown[][];
  const after = rows.slice(planned.skip);
  const take = planned.take ?? after.length;
  return {
    rows: after.slice(0, take).map((row) => Number(row[0])),
    hasMore: planned.probe && after.length > take,
  };
}

describe('window examples on SQLite', () => {
  const cases = WINDOW_EXAMPLES.filter((e) => e.dialects.includes('sqlite')).flatMap((example) =>
    example.pages.map((expected) => ({ ...example, expected, label: `${example.name}, page ${expected.page}` })),
  );

  test.each(cases)('$label', ({ sql, params, pageSize, expected }) => {
    const planned = plan(sql, 'sqlite', params ?? {}, { page: expected.page, pageSize });
    expect(runPage(planned)).toEqual({ rows: expected.rows, hasMore: expected.hasMore });
  });

  test('every dialect asks for a probe row whenever more rows exist', () => {
    for (const example of WINDOW_EXAMPLES) {
      for (const dialect of example.dialects) {
        for (const expected of example.pages.filter((p) => p.hasMore)) {
          const paging = { page: expected.page, pageSize: example.pageSize };
          expect(plan(example.sql, dialect, example.params ?? {}, paging).probe, `${example.name}, ${dialect}`).toBe(true);
        }
      }
    }
  });
});

describe('reads of the guard corpus run on SQLite', () => {
  const reads = GUARD_CORPUS.filter((c) => c.read && c.runs !== false && c.dialects.includes('sqlite'));
  test.each(reads)('$sql', ({ sql }) => {
    expect(() => db.prepare(sql).raw().all()).not.toThrow();
  });
});
