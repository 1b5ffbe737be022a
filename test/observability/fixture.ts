import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { PG } from '../api/connections-fixtures.ts';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { unique } from '../harness/unique.ts';

/**
 * An origin with the server key set, JSON logs, a slow-query threshold of
 * 0.2 s and a Postgres connection created with a password, plus helpers to
 * read its log lines. Each origin's key and password are random, so a test
 * can grep every line for them.
 */
export interface Observed {
  origin: Origin;
  adminKey: string;
  /** The password the Postgres connection was created with (the server trusts; it is never needed). */
  password: string;
  /** The Postgres connection's name. */
  pg: string;
  /** A call with the server key. */
  api<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; headers: Headers; body: T }>;
  /** `POST /execute_sql` with the server key; answers the response and its request id. */
  sql(sql: string, connection?: string, query?: string): Promise<{ status: number; body: any; requestId: string }>;
  stop(): Promise<void>;
}

export const SLOW_THRESHOLD = 0.2;

export async function startObserved(env: Record<string, string> = {}): Promise<Observed> {
  const adminKey = `slc_admin_${randomBytes(16).toString('hex')}`;
  const password = `pw_${randomBytes(12).toString('hex')}`;
  const origin = await startOrigin({
    env: { SLUICE_API_KEY: adminKey, SLUICE_JSON_LOGS: '1', SLUICE_SLOW_QUERY_THRESHOLD: String(SLOW_THRESHOLD), ...env },
  });
  const auth = { 'X-API-Key': adminKey };
  const api: Observed['api'] = (method, path, body, headers = {}) => origin.call(method, path, body, { ...auth, ...headers });
  const pg = unique('obs_pg');
  const made = await api('POST', '/api/v1/connections', { name: pg, db: 'postgres', host: PG.host, port: PG.port, user: PG.user, database: PG.database, password });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return {
    origin,
    adminKey,
    password,
    pg,
    api,
    async sql(text, connection = pg, query = '') {
      const res = await api('POST', `/execute_sql${query ? `?${query}` : ''}`, { sql: text, connection_name: connection });
      return { status: res.status, body: res.body, requestId: res.headers.get('x-request-id')! };
    },
    stop: () => origin.stop(),
  };
}

export type LogLine = Record<string, unknown> & { level: string; logger: string; request_id: string; key: string; message: string };

/** The origin's JSON log lines so far (lines that are not JSON are skipped). */
export function logLines(origin: Origin): LogLine[] {
  return origin.logs.flatMap((line) => {
    try {
      const parsed = JSON.parse(line);
      return parsed && typeof parsed === 'object' ? [parsed as LogLine] : [];
    } catch {
      return [];
    }
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every line the origin printed, checked for each secret: raw, and URL- or JSON-escaped. */
export function expectNoSecrets(origin: Origin, secrets: string[]): void {
  expect(origin.logs.length).toBeGreaterThan(0);
  for (const secret of secrets) {
    const forms = new Set([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]);
    const leaks = origin.logs.filter((line) => [...forms].some((form) => line.includes(form)));
    expect(leaks, `log lines carrying a secret`).toEqual([]);
  }
}
