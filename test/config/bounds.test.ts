import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Origin } from '../harness/origin.ts';
import { ADMIN_KEY, admin, auditIntact, configFile, sendFile, startConfigOrigin } from './fixture.ts';
import { unique } from '../harness/unique.ts';

/**
 * A large configuration file is diffed while the origin keeps answering:
 * the apply yields to the event loop between objects. A body past
 * SLUICE_CONFIG_MAX_BYTES, or with more objects than
 * SLUICE_CONFIG_MAX_OBJECTS, is refused before any work. Timings are
 * bounded loosely (the machine is shared): /health answers many times
 * during the diff, none of them slower than a few seconds.
 */

let origin: Origin;

beforeAll(async () => {
  origin = await startConfigOrigin({ env: { SLUICE_CONFIG_MAX_BYTES: String(4 * 2 ** 20), SLUICE_CONFIG_MAX_OBJECTS: '12000' } });
});

afterAll(async () => {
  await origin?.stop();
});

const queriesFile = (prefix: string, count: number) =>
  configFile({
    queries: Array.from({ length: count }, (_, i) => ({
      name: `${prefix}_${i}`,
      sql: `SELECT id, title FROM films WHERE id > :after ORDER BY id LIMIT ${i + 1}`,
      parameters: { after: 'integer' },
      connection_name: 'examples',
      collection: `${prefix}-col${i % 20}`,
    })),
  });

/** Polls /health every 20 ms until `done` settles: how many answers, and the slowest. */
async function pollHealth(done: Promise<unknown>): Promise<{ answers: number; slowestMs: number }> {
  let finished = false;
  void done.finally(() => (finished = true));
  let answers = 0;
  let slowestMs = 0;
  while (!finished) {
    const started = performance.now();
    const res = await origin.fetch('/health');
    await res.text();
    slowestMs = Math.max(slowestMs, performance.now() - started);
    if (res.status === 200) answers += 1;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { answers, slowestMs };
}

describe('config diff of a large file', () => {
  // 2,000 queries: before, /health stood unanswered for the whole diff (30 s and more). A 10,000-query file takes minutes on the embedded store of a shared test machine.
  it('diffs 2,000 queries while /health keeps answering', async () => {
    const prefix = unique('big');
    const diff = sendFile(origin, 'diff', queriesFile(prefix, 2_000));
    const [reply, health] = await Promise.all([diff, pollHealth(diff)]);
    expect(reply.status, JSON.stringify(reply.body).slice(0, 500)).toBe(200);
    expect(reply.body.counts.queries.create).toBe(2_000);
    expect(health.answers).toBeGreaterThan(10);
    // Loose: on a loaded machine the poller itself waits for a core; before, no /health was answered for the whole diff.
    expect(health.slowestMs).toBeLessThan(5000);
  }, 600_000);

  // Each unchanged entry is settled from rows read up front, with no statement of its own: a file diffed against the server it came from.
  it('diffs an unchanged 2,000-query file as no change, and still finds the few that differ', async () => {
    const prefix = unique('same');
    const file = queriesFile(prefix, 2_000);
    const applied = await sendFile(origin, 'apply', file);
    expect(applied.status, JSON.stringify(applied.body).slice(0, 500)).toBe(200);
    expect(applied.body.counts.queries.create).toBe(2_000);

    const diff = sendFile(origin, 'diff', file);
    const [reply, health] = await Promise.all([diff, pollHealth(diff)]);
    expect(reply.status, JSON.stringify(reply.body).slice(0, 500)).toBe(200);
    expect(reply.body.changed).toBe(false);
    expect(reply.body.counts.queries).toEqual({ create: 0, update: 0, delete: 0, manage: 0 });
    expect(health.slowestMs).toBeLessThan(5000);

    const edited = structuredClone(file);
    edited.queries[7].sql = 'SELECT id FROM films WHERE id > :after LIMIT 7';
    edited.queries[8].collection = `${prefix}-elsewhere`;
    edited.queries[9].cache_ttl = 60;
    const changes = await sendFile(origin, 'diff', edited);
    expect(changes.status).toBe(200);
    expect(changes.body.counts.queries).toEqual({ create: 0, update: 3, delete: 0, manage: 0 });
    expect(changes.body.changes.queries.update.map((u: { name: string; fields: Record<string, unknown> }) => [u.name, Object.keys(u.fields).sort()])).toEqual([
      [`${prefix}_7`, ['published_version', 'sql']],
      [`${prefix}_8`, ['collection']],
      [`${prefix}_9`, ['cache_ttl']],
    ]);
  }, 600_000);

  // New queries are made a batch at a time: each still gets its own save_query entry, chained in the file's order, and the origin answers meanwhile.
  it('applies 2,000 new queries: every one exists, each audited in file order, while /health keeps answering', async () => {
    const prefix = unique('new');
    const file = queriesFile(prefix, 2_000);
    const apply = sendFile(origin, 'apply', file);
    const [reply, health] = await Promise.all([apply, pollHealth(apply)]);
    expect(reply.status, JSON.stringify(reply.body).slice(0, 500)).toBe(200);
    expect(reply.body.counts.queries.create).toBe(2_000);
    expect(reply.body.changes.queries.create).toEqual(file.queries.map((q: { name: string }) => q.name));
    expect(health.answers).toBeGreaterThan(1);

    const again = await sendFile(origin, 'diff', file);
    expect(again.body.changed).toBe(false);
    const managed = await admin(origin, 'GET', '/api/v1/config/managed');
    expect(managed.body.managed.queries.filter((name: string) => name.startsWith(`${prefix}_`))).toHaveLength(2_000);
    const one = await admin(origin, 'GET', `/api/v1/queries/${prefix}_1999`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ name: `${prefix}_1999`, collection: `${prefix}-col19`, published_version: 1 });

    const saved: Array<{ target: string; changes: Record<string, any> }> = [];
    for (let cursor = ''; ; ) {
      const page = await admin(origin, 'GET', `/api/v1/audit?action=save_query&limit=1000${cursor}`);
      saved.push(...page.body.items.filter((entry: { target: string }) => entry.target.startsWith(`${prefix}_`)));
      if (!page.body.next_cursor) break;
      cursor = `&cursor=${encodeURIComponent(page.body.next_cursor)}`;
    }
    expect(saved.reverse().map((entry) => entry.target)).toEqual(file.queries.map((q: { name: string }) => q.name));
    expect(saved[5]!.changes).toMatchObject({ name: `${prefix}_5`, version: 1, sql: file.queries[5].sql, collection: `${prefix}-col5`, published: true, via: 'config' });
    expect(await auditIntact(origin)).toBe(true);
  }, 600_000);

  it('refuses a body past SLUICE_CONFIG_MAX_BYTES with 413 config_too_large, naming the setting', async () => {
    const file = configFile({ queries: [{ name: unique('huge'), sql: `SELECT '${'x'.repeat(5 * 2 ** 20)}'`, connection_name: 'examples' }] });
    const reply = await sendFile(origin, 'diff', file);
    expect(reply.status).toBe(413);
    expect(reply.body).toMatchObject({ code: 'config_too_large', request_id: expect.any(String) });
    expect(reply.body.error).toContain('SLUICE_CONFIG_MAX_BYTES');
  });

  it('refuses more objects than SLUICE_CONFIG_MAX_OBJECTS with 413 config_too_large, before any work', async () => {
    const prefix = unique('many');
    const file = configFile({ queries: Array.from({ length: 12_001 }, (_, i) => ({ name: `${prefix}_${i}`, sql: 'SELECT 1', connection_name: 'examples' })) });
    const res = await origin.fetch('/api/v1/config/apply', {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
      body: JSON.stringify(file),
    });
    const body = await res.json();
    expect(res.status).toBe(413);
    expect(body).toMatchObject({ code: 'config_too_large', request_id: expect.any(String) });
    expect(body.error).toContain('SLUICE_CONFIG_MAX_OBJECTS');
    expect((await origin.call('GET', `/api/v1/queries/${prefix}_0`, undefined, { 'x-api-key': ADMIN_KEY })).status).toBe(404);
  });
});
