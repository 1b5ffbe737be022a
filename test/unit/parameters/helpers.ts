import { expect, test } from 'vitest';
import { parseDefinitions, resolveValues, type Rules } from '../../../shared/parameters/index.ts';

/** Shared helpers of the parameter tests. */

export type Source = 'query' | 'json';

/** The rules of valid definitions; fails the test with the problems otherwise. */
export function rulesOf(raw: unknown): Rules {
  const parsed = parseDefinitions(raw);
  if ('errors' in parsed) throw new Error(`unexpected problems: ${JSON.stringify(parsed.errors)}`);
  return parsed.rules;
}

/** The problem reported for parameter `p` of `{p: definition}`. */
export function problemOf(definition: unknown): string {
  const parsed = parseDefinitions({ p: definition });
  if (!('errors' in parsed)) throw new Error(`expected a problem, got ${JSON.stringify(parsed.rules)}`);
  return parsed.errors.p;
}

/** Resolves `{p: value}` (no key at all when value is undefined) for `{p: definition}`. */
export function one(definition: unknown, source: Source, value?: unknown, claims?: Record<string, unknown> | null) {
  const supplied = value === undefined ? {} : { p: value };
  const result = resolveValues(rulesOf({ p: definition }), supplied, { source, claims });
  return 'errors' in result ? { error: result.errors.p } : { value: result.values.p };
}

/** [definition, source, supplied, expected value] */
type Pass = [unknown, Source, unknown, unknown];
/** [definition, source, supplied, expected message] */
type Fail = [unknown, Source, unknown, string];

export const passes = (cases: Pass[]) =>
  test.each(cases)('%j from %s: %s is accepted', (definition, source, supplied, expected) => {
    expect(one(definition, source, supplied)).toEqual({ value: expected });
  });

export const fails = (cases: Fail[]) =>
  test.each(cases)('%j from %s: %s is refused', (definition, source, supplied, message) => {
    expect(one(definition, source, supplied)).toEqual({ error: message });
  });
