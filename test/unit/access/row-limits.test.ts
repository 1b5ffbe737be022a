import { describe, expect, it } from 'vitest';
import type { Env } from '../../../origin/env.ts';
import { parseRowOptions, rowLimits } from '../../../origin/services/run/options.ts';
import { type KeyGrants, emptyGrants } from '../../../shared/access/grants.ts';

/** A key's max_rows and query_timeout lower the server's limits, never raise them. */

const env = (over: Partial<Env> = {}) => ({ SLUICE_MAX_PAGE_SIZE: 1000, SLUICE_QUERY_TIMEOUT: 30, SLUICE_STREAM_MAX_ROWS: undefined, ...over }) as Env;
const key = (grants: Partial<KeyGrants>) => ({ key: { id: 1, name: 'k', workspace: 'default', grants: { ...emptyGrants(), ...grants } } });

describe('rowLimits', () => {
  it('keeps the server limits for callers without a key, or keys without limits', () => {
    expect(rowLimits(env())).toMatchObject({ maxPageSize: 1000, serverTimeoutSeconds: 30, streamMaxRows: undefined });
    expect(rowLimits(env(), key({}))).toMatchObject({ maxPageSize: 1000, serverTimeoutSeconds: 30, streamMaxRows: undefined });
  });

  it('caps pages and streams at max_rows, the lower of key and server', () => {
    expect(rowLimits(env(), key({ max_rows: 50 }))).toMatchObject({ maxPageSize: 50, streamMaxRows: 50, streamCap: 'max_rows' });
    expect(rowLimits(env({ SLUICE_MAX_PAGE_SIZE: 20, SLUICE_STREAM_MAX_ROWS: 40 }), key({ max_rows: 50 }))).toMatchObject({ maxPageSize: 20, streamMaxRows: 40, streamCap: 'SLUICE_STREAM_MAX_ROWS' });
  });

  it('lowers the query timeout, or sets one when the server has none', () => {
    expect(rowLimits(env(), key({ query_timeout: 5 })).serverTimeoutSeconds).toBe(5);
    expect(rowLimits(env(), key({ query_timeout: 60 })).serverTimeoutSeconds).toBe(30);
    expect(rowLimits(env({ SLUICE_QUERY_TIMEOUT: 0 }), key({ query_timeout: 7 })).serverTimeoutSeconds).toBe(7);
  });
});

describe('parseRowOptions under a key', () => {
  const limits = rowLimits(env(), key({ max_rows: 5, query_timeout: 2 }));

  it('refuses a page_size above max_rows (400 naming it) and defaults to at most max_rows', () => {
    expect(() => parseRowOptions({ page_size: '6' }, {}, limits)).toThrow(/page_size must be at most 5 \(this API key's max_rows\)/);
    expect(parseRowOptions({ page_size: '5' }, {}, limits).paging).toEqual({ page: 1, pageSize: 5 });
    expect(parseRowOptions({}, {}, limits).paging).toEqual({ page: 1, pageSize: 5 });
  });

  it('cuts streams at max_rows', () => {
    expect(parseRowOptions({ stream: 'true', format: 'csv' }, {}, limits)).toMatchObject({ streamMaxRows: 5, streamCap: 'max_rows' });
  });

  it("lets the request's timeout lower the key's, never raise it", () => {
    expect(parseRowOptions({}, {}, limits).timeoutMs).toBe(2000);
    expect(parseRowOptions({ timeout: '1' }, {}, limits).timeoutMs).toBe(1000);
    expect(parseRowOptions({ timeout: '10' }, {}, limits).timeoutMs).toBe(2000);
  });
});
