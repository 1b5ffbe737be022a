import { createHash } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, freshDatabase } from '../harness/postgres-store.ts';
import { type Observed, expectNoSecrets, startObserved } from './fixture.ts';
import { eventually } from '../harness/eventually.ts';
import { unique } from '../harness/unique.ts';

/**
 * DELETE /api/v1/history?caller=<name>: a dry run counts, the real run
 * deletes the caller's runs (and so their events) and usage counts and
 * nothing of anyone else's, audited as `forget_caller` with the SHA-256 of
 * the name as target, never the name. Owners only. The store is a Postgres
 * database, so the test reads the tables themselves too.
 */

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

let store: FreshDatabase;
let db: postgres.Sql;
let o: Observed;
let dev: { name: string; token: string };
let owner: { name: string; token: string };

async function administrator(role: string): Promise<{ name: string; token: string }> {
  const name = unique(role);
  const made = await o.api('POST', '/api/v1/administrators', { name, role });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const token = await o.api('POST', `/api/v1/administrators/${name}/tokens`, {});
  expect(token.status, JSON.stringify(token.body)).toBe(201);
  return { name, token: token.body.secret };
}

const as = (who: { token: string }) => ({ Authorization: `Bearer ${who.token}` });

async function runAs(who: { token: string }, sql: string) {
  const res = await o.origin.call('POST', '/execute_sql', { sql, connection_name: o.pg }, as(who));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

const forget = (name: string, extra = '', headers: Record<string, string> = { 'X-API-Key': o.adminKey }) =>
  o.origin.call('DELETE', `/api/v1/history?caller=${encodeURIComponent(name)}${extra}`, undefined, headers);

const counts = async (name: string) => {
  const [row] = await db`select (select count(*) from runs where key_name = ${name})::int as runs,
    (select count(*) from usage_counters where caller = ${name})::int as usage`;
  return { runs: row.runs as number, usage: row.usage as number };
};

beforeAll(async () => {
  store = await freshDatabase();
  db = postgres(store.url, { max: 1, onnotice: () => {} });
  o = await startObserved({ SLUICE_DATABASE_URL: store.url });
  dev = await administrator('developer');
  owner = await administrator('owner');
  for (let i = 0; i < 3; i++) await runAs(dev, `select ${i} as n`);
  await runAs(owner, 'select 42 as n');
  expect((await o.sql('select 7 as n')).status).toBe(200);
  // Runs are written within about 250 ms, usage counts within about a second.
  await eventually(async () => (await counts(dev.name)).runs === 3, { what: 'the developer runs stored' });
});
afterAll(async () => {
  await o?.stop();
  await db?.end({ timeout: 5 });
  await store?.drop();
});

describe('forget a caller', () => {
  it('a dry run counts their runs, events and usage counts, and deletes nothing', async () => {
    const res = await forget(dev.name, '&dry_run=true');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ caller_sha256: sha256(dev.name), dry_run: true, runs: 3, events: 3, usage_counters: 2 });
    expect(await counts(dev.name)).toEqual({ runs: 3, usage: 2 });
    expect((await o.api('GET', `/api/v1/audit?action=forget_caller`)).body.items).toEqual([]);
  });

  it('the real run deletes exactly theirs, and says what it deleted', async () => {
    const others = await db`select key_name, count(*)::int as n from runs where key_name <> ${dev.name} group by key_name order by key_name`;
    const res = await forget(dev.name);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ caller_sha256: sha256(dev.name), dry_run: false, runs: 3, events: 3, usage_counters: 2 });
    expect(await counts(dev.name)).toEqual({ runs: 0, usage: 0 });
    expect(await db`select key_name, count(*)::int as n from runs where key_name <> ${dev.name} group by key_name order by key_name`).toEqual(others);
    expect((await o.api('GET', `/api/v1/history?key=${dev.name}`)).body.items).toEqual([]);
    // Their events are gone too: a replay from the start has none of theirs.
    expect(JSON.stringify(await replayAll())).not.toContain(dev.name);
    // Forgetting again finds nothing.
    expect((await forget(dev.name, '&dry_run=true')).body).toMatchObject({ runs: 0, usage_counters: 0 });
  });

  it('is audited as forget_caller with the SHA-256 of the name as target, never the name', async () => {
    const audit = await o.api('GET', '/api/v1/audit?action=forget_caller');
    expect(audit.status).toBe(200);
    expect(audit.body.items).toHaveLength(1);
    expect(audit.body.items[0]).toMatchObject({ actor: 'admin', action: 'forget_caller', target: sha256(dev.name), changes: { runs: 3, usage_counters: 2 } });
    expect(JSON.stringify(audit.body)).not.toContain(dev.name);
    const stored = await db`select * from audit_log where action = 'forget_caller'`;
    expect(JSON.stringify(stored)).not.toContain(dev.name);
    expect((await o.api('GET', '/api/v1/audit/verify')).body).toMatchObject({ intact: true });
  });

  it('needs history.forget: owners only', async () => {
    expect((await forget(owner.name, '&dry_run=true', as(dev))).status).toBe(403);
    const admin = await administrator('admin');
    expect((await forget(owner.name, '&dry_run=true', as(admin))).status).toBe(403);
    const res = await forget(owner.name, '&dry_run=true', as(owner));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.runs).toBe(1);
  });

  it('refuses a missing caller, a bad dry_run and unknown arguments', async () => {
    expect((await o.api('DELETE', '/api/v1/history')).body.code).toBe('invalid_request');
    expect((await o.api('DELETE', '/api/v1/history?caller=')).body.code).toBe('invalid_request');
    expect((await forget(dev.name, '&dry_run=maybe')).body.code).toBe('invalid_request');
    expect((await forget(dev.name, '&everyone=true')).body.code).toBe('unknown_field');
  });

  it('no log line carries the admin key, a token or the connection password', () => {
    expectNoSecrets(o.origin, [o.adminKey, o.password, dev.token, owner.token]);
  });
});

/** Every run event from the start of history (Last-Event-ID 0): as many as the runs table holds now. */
async function replayAll(): Promise<string> {
  const [{ n }] = await db`select count(*)::int as n from runs`;
  const controller = new AbortController();
  const res = await o.origin.fetch('/events', { headers: { 'X-API-Key': o.adminKey, 'Last-Event-ID': '0' }, signal: controller.signal });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while ((text.match(/^event: run$/gm) ?? []).length < n) {
    const chunk = await reader.read();
    if (chunk.done) break;
    text += decoder.decode(chunk.value, { stream: true });
  }
  controller.abort();
  expect((text.match(/^event: run$/gm) ?? []).length).toBe(n);
  return text;
}

describe('forget a key', () => {
  it("clears a key's live usage on this origin as well as its stored counts", async () => {
    const name = unique('forgotten_key');
    const made = await o.api('POST', '/api/v1/api-keys', { name, connections: ['*'] });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const ran = await o.origin.call('POST', '/execute_sql', { sql: 'select 1 as n', connection_name: o.pg }, { 'X-API-Key': made.body.secret });
    expect(ran.status, JSON.stringify(ran.body)).toBe(200);
    await eventually(async () => (await o.api('GET', `/api/v1/api-keys/${name}`)).body.usage?.queries === 1, { what: 'the key run counted' });
    expect((await forget(name)).status).toBe(200);
    expect((await o.api('GET', `/api/v1/api-keys/${name}`)).body.usage).toMatchObject({ queries: 0, errors: 0, rows: 0 });
  });
});
