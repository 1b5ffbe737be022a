import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { applyGrants, completeGrants, grantFieldsShape, grantsGiven, tablePatternProblem } from '../../../shared/access/grants-input.ts';
import { emptyGrants } from '../../../shared/access/grants.ts';

const schema = z.strictObject(grantFieldsShape);
const parse = (body: Record<string, unknown>) => schema.parse(body);
/** The messages of a refused body, by field. */
function problems(body: Record<string, unknown>): Record<string, string> {
  const result = schema.safeParse(body);
  expect(result.success, JSON.stringify(body)).toBe(false);
  const out: Record<string, string> = {};
  for (const issue of result.error!.issues) out[issue.path.join('.') || 'body'] ??= issue.message;
  return out;
}

describe('connections', () => {
  it('takes a list, "*" or an empty list', () => {
    expect(parse({ connections: ['a', 'b', 'a'] }).connections).toEqual(['a', 'b']);
    expect(parse({ connections: '*' }).connections).toEqual(['*']);
    expect(parse({ connections: ['a', '*'] }).connections).toEqual(['*']);
    expect(parse({ connections: [] }).connections).toEqual([]);
    expect(parse({ connections: null }).connections).toEqual([]);
  });

  it('refuses anything else', () => {
    expect(problems({ connections: 'a' }).connections).toMatch(/list of connection names/);
    expect(problems({ connections: [1] })).toHaveProperty('connections');
    expect(problems({ connections: [''] })['connections.0']).toMatch(/must not be empty/);
  });
});

describe('queries', () => {
  it('stores plain names read-only and objects with write access as objects', () => {
    expect(parse({ queries: ['a', { name: 'b', allow_writes: true }, { name: 'c' }, { name: 'd', allow_writes: false }] }).queries).toEqual([
      'a',
      'c',
      'd',
      { name: 'b', allow_writes: true },
    ]);
    expect(parse({ queries: '*' }).queries).toEqual(['*']);
    expect(parse({ queries: ['*', 'x'] }).queries).toEqual(['*', 'x']);
  });

  it('keeps write access for a name given both ways', () => {
    expect(parse({ queries: ['a', { name: 'a', allow_writes: true }] }).queries).toEqual([{ name: 'a', allow_writes: true }]);
  });

  it('refuses write access on "*" and malformed entries', () => {
    expect(Object.values(problems({ queries: [{ name: '*', allow_writes: true }] })).join()).toMatch(/never carries write access/);
    expect(problems({ queries: [{ name: 'a', writes: true }] })).toHaveProperty(['queries.0']);
    expect(problems({ queries: 'a' })).toHaveProperty('queries');
  });
});

describe('collections', () => {
  it('is a sorted list without duplicates and without a wildcard', () => {
    expect(parse({ collections: ['b', 'a', 'b'] }).collections).toEqual(['a', 'b']);
    expect(Object.values(problems({ collections: ['*'] })).join()).toMatch(/no wildcard/);
    expect(problems({ collections: '*' })).toHaveProperty('collections');
  });
});

describe('write settings', () => {
  it('stores write operations lower-case; null means every write', () => {
    expect(parse({ allow_writes: true, allowed_write_ops: ['INSERT', 'Update', 'insert'] })).toEqual({
      allow_writes: true,
      allowed_write_ops: ['insert', 'update'],
    });
    expect(parse({ allowed_write_ops: null }).allowed_write_ops).toBeNull();
    expect(problems({ allowed_write_ops: ['insert into'] })).toHaveProperty(['allowed_write_ops.0']);
    expect(problems({ allow_writes: 'yes' })).toHaveProperty('allow_writes');
  });
});

describe('allowed_tables', () => {
  it('takes table, schema.table and schema.*, stored lower-case', () => {
    expect(parse({ allowed_tables: ['Orders', 'sales.Items', 'audit.*', 'orders', 'order-lines_2'] }).allowed_tables).toEqual(['orders', 'sales.items', 'audit.*', 'order-lines_2']);
  });

  it('refuses other patterns', () => {
    for (const pattern of ['*', 'a.b.c', '*.t', 'a.', '.t', 'my table', '"quoted"', 'a*', '']) expect(tablePatternProblem(pattern), pattern).not.toBeNull();
    expect(problems({ allowed_tables: ['a.b.c'] }).allowed_tables).toMatch(/more than two parts/);
  });
});

describe('limits', () => {
  it('takes whole numbers of at least 1 for max_rows and max_concurrent', () => {
    expect(parse({ max_rows: 500, max_concurrent: 2 })).toEqual({ max_rows: 500, max_concurrent: 2 });
    expect(problems({ max_rows: 0 })).toHaveProperty('max_rows');
    expect(problems({ max_rows: 1.5 })).toHaveProperty('max_rows');
    expect(problems({ max_concurrent: '2' })).toHaveProperty('max_concurrent');
  });

  it('stores quota and rate_limit canonical', () => {
    expect(parse({ quota: ' 1000 / Days', rate_limit: '10/Minutes' })).toEqual({ quota: '1000/day', rate_limit: '10/minute' });
    expect(parse({ quota: '5/month' }).quota).toBe('5/month');
    expect(problems({ quota: '5/hour' }).quota).toMatch(/N\/day or N\/month/);
    expect(problems({ rate_limit: '10/week' }).rate_limit).toMatch(/N\/second/);
    expect(problems({ rate_limit: '0/second' })).toHaveProperty('rate_limit');
  });

  it('takes query_timeout in seconds above 0', () => {
    expect(parse({ query_timeout: 2.5 }).query_timeout).toBe(2.5);
    expect(problems({ query_timeout: 0 })).toHaveProperty('query_timeout');
    expect(problems({ query_timeout: '5' })).toHaveProperty('query_timeout');
  });
});

describe('allowed_ips', () => {
  it('stores addresses and ranges canonical; null means every address', () => {
    expect(parse({ allowed_ips: ['10.1.2.3/8', '2001:DB8::1', '::ffff:1.2.3.4', '10.0.0.0/8'] }).allowed_ips).toEqual([
      '10.0.0.0/8',
      '2001:db8::1',
      '1.2.3.4',
    ]);
    expect(parse({ allowed_ips: null }).allowed_ips).toBeNull();
  });

  it('names every malformed entry', () => {
    expect(problems({ allowed_ips: ['1.2.3.4', 'nope', '10.0.0.0/40'] }).allowed_ips).toBe(
      'not an IPv4/IPv6 address or CIDR range: "nope", "10.0.0.0/40"',
    );
  });
});

describe('budget', () => {
  it('fills the limits left out with null; a budget with none is no budget', () => {
    expect(parse({ budget: { rows_per_day: 1000 } }).budget).toEqual({ max_estimated_rows: null, rows_per_day: 1000, db_seconds_per_day: null });
    expect(parse({ budget: { max_estimated_rows: 10_000, db_seconds_per_day: 0.5 } }).budget).toEqual({ max_estimated_rows: 10_000, rows_per_day: null, db_seconds_per_day: 0.5 });
    expect(parse({ budget: {} }).budget).toBeNull();
    expect(parse({ budget: null }).budget).toBeNull();
  });

  it('refuses limits that are not whole rows or positive seconds, and unknown limits', () => {
    expect(problems({ budget: { rows_per_day: 0 } })).toHaveProperty(['budget.rows_per_day']);
    expect(problems({ budget: { max_estimated_rows: 1.5 } })).toHaveProperty(['budget.max_estimated_rows']);
    expect(problems({ budget: { db_seconds_per_day: 0 } })).toHaveProperty(['budget.db_seconds_per_day']);
    expect(problems({ budget: { db_seconds_per_day: 86_401 } })).toHaveProperty(['budget.db_seconds_per_day']);
    expect(problems({ budget: { rows: 5 } })).toHaveProperty('budget');
    expect(problems({ budget: '1000/day' })).toHaveProperty('budget');
  });
});

describe('helpers', () => {
  it('refuses unknown fields', () => {
    expect(schema.safeParse({ connection: ['a'] }).error?.issues[0]?.code).toBe('unrecognized_keys');
  });

  it('applies the given fields over a base, null resetting to the new-key value', () => {
    const base = { ...emptyGrants(), connections: ['a'], max_rows: 10, allowed_ips: ['1.2.3.4'] };
    const body = parse({ max_rows: null, rate_limit: '1/second' });
    const given = grantsGiven(body);
    expect(given).toEqual({ max_rows: null, rate_limit: '1/second' });
    expect(applyGrants(base, given)).toEqual({ ...base, max_rows: null, rate_limit: '1/second' });
    expect(completeGrants({ connections: ['x'] })).toEqual({ ...emptyGrants(), connections: ['x'] });
  });
});
