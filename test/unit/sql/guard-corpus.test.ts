import { describe, expect, test } from 'vitest';
import { inspect } from '../../../origin/sql/index.ts';
import { CORPUS_ENGINES, corpus } from '../../guard-corpus/index.ts';

/** The published guard corpus (test/guard-corpus/*.json) over the guard, engine by engine. */
describe.each(CORPUS_ENGINES)('%s guard corpus', (engine) => {
  const cases = corpus(engine);

  test('holds refused cases and reads', () => {
    expect(cases.filter((c) => c.verdict === 'refused').length).toBeGreaterThanOrEqual(15);
    expect(cases.filter((c) => c.verdict === 'read').length).toBeGreaterThanOrEqual(4);
  });

  test.each(cases)('$verdict: $sql', ({ sql, verdict }) => {
    const info = inspect(sql, engine);
    expect(info.isRead, info.refusal ?? 'read').toBe(verdict === 'read');
    if (verdict === 'refused') expect(info.refusal).toBeTruthy();
  });
});
