import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type TestDb, createTestDb } from '../query/fixture.ts';
import { unique } from '../harness/unique.ts';

/**
 * The grants tests: a real origin with the server key set, a writable
 * Postgres schema behind a saved connection, saved queries on it and on the
 * bundled examples, and real scoped keys made through `/api/v1/api-keys`
 * that authenticate with `X-API-Key`.
 */

export const ADMIN_KEY = 'grants-admin-key-0123456789';

export type Reply = { status: number; headers: Headers; body: any };

export interface GrantsEnv {
  origin: Origin;
  /** The writable Postgres connection's name; tables `films`, `secrets`, `notes`. */
  pg: string;
  db: TestDb;
  stop(): Promise<void>;
}

/** An origin with `SLUICE_API_KEY` and a Postgres connection holding `films` (3 rows), `secrets` and `notes`. */
export async function startGrantsOrigin(env: Record<string, string> = {}): Promise<GrantsEnv> {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-grants-'));
  const db = await createTestDb('postgres', dir);
  await db.exec(
    'CREATE TABLE films (id int PRIMARY KEY, title text)',
    "INSERT INTO films VALUES (1, 'Alpha'), (2, 'Beta'), (3, 'Gamma')",
    "CREATE TABLE secrets (id int, v text)",
    "INSERT INTO secrets VALUES (1, 'hidden')",
    'CREATE TABLE notes (id serial PRIMARY KEY, note text)',
  );
  const origin = await startOrigin({ env: { TZ: 'Europe/Paris', SLUICE_API_KEY: ADMIN_KEY, ...env } });
  const pg = unique('pg');
  const res = await admin(origin, 'POST', '/api/v1/connections', { name: pg, ...db.fields });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return {
    origin,
    pg,
    db,
    async stop() {
      await origin.stop();
      await db.drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A call with the server key. */
export const admin = (origin: Origin, method: string, path: string, body?: unknown): Promise<Reply> =>
  origin.call(method, path, body, { 'x-api-key': ADMIN_KEY });

/** A published saved query (with the server key). */
export async function saveQuery(origin: Origin, name: string, fields: Record<string, unknown>): Promise<void> {
  const res = await admin(origin, 'POST', '/api/v1/queries', { name, publish: true, ...fields });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

/** A scoped key made through the Management API; answers its secret. */
export async function makeKey(origin: Origin, grants: Record<string, unknown>): Promise<{ name: string; secret: string }> {
  const name = unique('key');
  const res = await admin(origin, 'POST', '/api/v1/api-keys', { name, ...grants });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { name, secret: res.body.secret };
}

/** A caller authenticated with a scoped key's secret. */
export function as(origin: Origin, secret: string) {
  const headers = { 'x-api-key': secret };
  return {
    call: (method: string, path: string, body?: unknown): Promise<Reply> => origin.call(method, path, body, headers),
    get: (path: string): Promise<Reply> => origin.call('GET', path, undefined, headers),
    sql: (connection: string, sql: string, query = ''): Promise<Reply> =>
      origin.call('POST', `/execute_sql${query}`, { sql, connection_name: connection }, headers),
    fetch: (path: string, init: RequestInit & { json?: unknown } = {}) =>
      origin.fetch(path, { ...init, headers: { ...headers, ...(init.headers as Record<string, string>) } }),
  };
}

/** Names a key's `/catalog` lists, among `names`. */
export async function catalogNames(origin: Origin, secret: string, names: string[]): Promise<string[]> {
  const res = await as(origin, secret).get('/catalog');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.queries.map((q: { name: string }) => q.name).filter((n: string) => names.includes(n)).sort();
}

/** Saved-query paths `/openapi.json` documents for a key, among `names`. */
export async function openApiNames(origin: Origin, secret: string, names: string[]): Promise<string[]> {
  const res = await as(origin, secret).get('/openapi.json');
  expect(res.status).toBe(200);
  const paths = Object.keys(res.body.paths as Record<string, unknown>);
  return names.filter((n) => paths.includes(`/q/${encodeURIComponent(n)}`) || paths.includes(`/q/${n}`)).sort();
}

/** Names among `names` whose `/q/<name>` a key can run (200), the others answering 404. */
export async function runnableNames(origin: Origin, secret: string, names: string[]): Promise<string[]> {
  const runnable: string[] = [];
  for (const name of names) {
    const res = await as(origin, secret).get(`/q/${encodeURIComponent(name)}`);
    if (res.status === 200) runnable.push(name);
    else expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(404);
  }
  return runnable.sort();
}
