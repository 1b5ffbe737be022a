import { describe, expect, test } from 'vitest';
import { ascending } from '../../../origin/services/parameter-values/read.ts';
import { notListed } from '../../../origin/services/parameter-values/check.ts';
import { describeDefinitions } from '../../../shared/parameters/index.ts';
import { problemOf, rulesOf } from './helpers.ts';

describe('values_query, values_field and values_ttl', () => {
  test('are read and shown back in the rule', () => {
    const definition = { type: 'string', values_query: 'select distinct rating from films', values_ttl: 60 };
    expect(rulesOf({ p: definition }).p).toEqual({ type: 'str', required: true, values_query: definition.values_query, values_ttl: 60 });
    expect(describeDefinitions(rulesOf({ p: definition }))).toEqual({ p: definition });
    expect(rulesOf({ p: { values_field: 'status' } }).p).toEqual({ required: true, values_field: 'status' });
  });

  test.each([
    [{ values_query: '' }, 'values_query must be a SQL statement'],
    [{ values_query: 5 }, 'values_query must be a SQL statement'],
    [{ values_field: '' }, 'values_field must be the name of a field'],
    [{ values_query: 'select 1', values_ttl: 0 }, 'values_ttl must be a whole number of seconds from 1 to 86400'],
    [{ values_query: 'select 1', values_ttl: 1.5 }, 'values_ttl must be a whole number of seconds from 1 to 86400'],
    [{ values_ttl: 60 }, 'values_ttl applies only with values_query or values_field'],
    [{ values_query: 'select 1', values_field: 'a' }, 'values_query (SQL queries) and values_field (mongo queries) cannot be combined'],
    [{ values_query: 'select 1', from_claim: 'tenant' }, 'a from_claim parameter cannot list values'],
  ])('%j is refused: %s', (definition, problem) => {
    expect(problemOf(definition)).toContain(problem);
  });
});

describe('a listed value refused', () => {
  test('names every value when there are at most 20', () => {
    expect(notListed({ items: ['G', 'PG'], count: 2, refreshed_at: '' })).toBe('must be one of: G, PG');
    expect(notListed({ items: [], count: 0, refreshed_at: '' })).toBe('must be one of its listed values, and its values_query lists none');
  });

  test('names the first 20 and how many there are', () => {
    const items = Array.from({ length: 25 }, (_, i) => i + 1);
    expect(notListed({ items, count: 25, refreshed_at: '' })).toBe(`must be one of the 25 listed values, such as: ${items.slice(0, 20).join(', ')}, …`);
  });
});

test('lists sort ascending: booleans, numbers by value, then text by code point', () => {
  expect(['b', 10, 'B', 2, true, false, 2n ** 60n, 'a'].sort(ascending)).toEqual([false, true, 2, 10, 2n ** 60n, 'B', 'a', 'b']);
});
