import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type FreshDatabase, freshDatabase } from '../harness/postgres-store.ts';

/**
 * Queries read saved connections from an in-process cache; a change made
 * through any origin on the same store reaches every origin's next query
 * (its own at once, the others through NOTIFY), never after a stale minute.
 */

let database: FreshDatabase;
let dir: string;
let a: Origin;
let b: Origin;

beforeAll(async () => {
  database = await freshDatabase();
  dir = await mkdtemp(join(tmpdir(), 'sluice-conncache-'));
  const env = { SLUICE_DATABASE_URL: database.url, SLUICE_EXAMPLES: '0' };
  a = await startOrigin({ template: false, dataDir: await mkdtemp(join(dir, 'a-')), env });
  b = await startOrigin({ template: false, dataDir: await mkdtemp(join(dir, 'b-')), env });
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await database?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const run = (o: Origin, name: string) => o.call('POST', '/execute_sql', { connection_name: name, sql: 'select 42 as x' });

/** How soon another origin must show a change (its notification, under load); a missed one would take a minute. */
const PROPAGATION_MS = 10_000;

/** Polls until `o` answers `status` for `name`; returns how long that took. */
async function answers(o: Origin, name: string, status: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const res = await run(o, name);
    if (res.status === status) return Date.now() - started;
    if (Date.now() - started > 15_000) throw new Error(`still ${res.status} (${JSON.stringify(res.body)}) after 15 s, expected ${status}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('connection cache', () => {
  it('a change on one origin reaches the other origin\'s next queries', async () => {
    const name = `cached_${Date.now()}`;
    expect((await a.call('POST', '/api/v1/connections', { name, db: 'duckdb' })).status).toBe(201);
    expect((await run(a, name)).status).toBe(200);
    expect((await run(b, name)).status).toBe(200);

    expect((await b.call('PATCH', `/api/v1/connections/${name}`, { active: false })).status).toBe(200);
    expect((await run(b, name)).status).toBe(403);
    expect(await answers(a, name, 403)).toBeLessThan(PROPAGATION_MS);

    expect((await a.call('PATCH', `/api/v1/connections/${name}`, { active: true })).status).toBe(200);
    expect((await run(a, name)).status).toBe(200);
    expect(await answers(b, name, 200)).toBeLessThan(PROPAGATION_MS);

    expect((await b.call('DELETE', `/api/v1/connections/${name}`, { reason: 'test' })).status).toBe(200);
    expect((await run(b, name)).status).toBe(404);
    expect(await answers(a, name, 404)).toBeLessThan(PROPAGATION_MS);
  });

  it('a connection deleted and created again under its name is the new one everywhere', async () => {
    const name = `again_${Date.now()}`;
    expect((await a.call('POST', '/api/v1/connections', { name, db: 'duckdb' })).status).toBe(201);
    expect((await run(b, name)).status).toBe(200);
    expect((await a.call('DELETE', `/api/v1/connections/${name}`, { reason: 'test' })).status).toBe(200);
    expect((await a.call('POST', '/api/v1/connections', { name, db: 'duckdb', active: false })).status).toBe(201);
    expect(await answers(b, name, 403)).toBeLessThan(PROPAGATION_MS);
  });
});
