import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { unique } from '../harness/unique.ts';

/**
 * `GET /api/v1/audit`, `/verify` and `/delivery` over HTTP, and what the
 * management verbs write: full snapshots for creates and deletes, diffs for
 * updates, passwords as `********` or `changed`, never a secret.
 */

const ADMIN_KEY = `admin-${randomBytes(12).toString('hex')}`;
const PASSWORD = `Pw-${randomBytes(8).toString('hex')}`;
const NEW_PASSWORD = `Pw-${randomBytes(8).toString('hex')}`;

let origin: Origin;
const call = (method: string, path: string, body?: unknown) => origin.call(method, path, body, { 'x-api-key': ADMIN_KEY });

async function expectOk(res: Promise<{ status: number; body: any }>, status = 200) {
  const r = await res;
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  return r.body;
}

/** Every entry, newest first, following the cursor. */
async function allEntries(query = ''): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await expectOk(call('GET', `/api/v1/audit?limit=50${query}${cursor ? `&cursor=${cursor}` : ''}`));
    items.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  return items;
}

const conn = unique('audited_conn');
const query = unique('audited_query');
let keySecret: string;

beforeAll(async () => {
  origin = await startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY } });
  await expectOk(call('POST', '/api/v1/connections', { name: conn, db: 'postgres', host: '127.0.0.1', user: 'u', password: PASSWORD }), 201);
  await expectOk(call('PATCH', `/api/v1/connections/${conn}`, { password: NEW_PASSWORD }));
  await expectOk(call('PATCH', `/api/v1/connections/${conn}`, { port: 5433 }));
  // The same password again is a change too: an entry that never tells whether it was the stored one.
  await expectOk(call('PATCH', `/api/v1/connections/${conn}`, { password: NEW_PASSWORD }));
  // Nothing sent, nothing written.
  await expectOk(call('PATCH', `/api/v1/connections/${conn}`, { port: 5433 }));
  await expectOk(call('DELETE', `/api/v1/connections/${conn}`, { reason: 'audit test' }));
  await expectOk(call('POST', '/api/v1/queries', { name: query, sql: 'select 1 as one', connection_name: 'examples', collection: 'first' }), 201);
  await expectOk(call('PATCH', `/api/v1/queries/${query}`, { collection: 'second' }));
  await expectOk(call('POST', `/api/v1/queries/${query}/publish`, { version: 1 }));
  const key = await expectOk(call('POST', '/api/v1/api-keys', { name: unique('audited_key'), connections: ['examples'] }), 201);
  keySecret = key.secret;
});

afterAll(async () => {
  await origin?.stop();
});

describe('entries the verbs write', () => {
  it('a create holds a full snapshot with the password masked', async () => {
    const [entry] = await allEntries(`&action=create_connection&target=${conn}`);
    expect(entry).toMatchObject({ actor: 'admin', action: 'create_connection', target: conn, keyed: false });
    expect(entry.changes).toMatchObject({ name: conn, db: 'postgres', host: '127.0.0.1', user: 'u', password: '********', port: null, active: true });
    expect(entry.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('an update holds only the changed fields; a password change is `changed`', async () => {
    const updates = await allEntries(`&action=update_connection&target=${conn}`);
    expect(updates.map((e) => e.changes)).toEqual([{ password: 'changed' }, { port: { from: null, to: 5433 } }, { password: 'changed' }]);
  });

  it('a delete holds a full snapshot and the reason', async () => {
    const [entry] = await allEntries(`&action=delete_connection&target=${conn}`);
    expect(entry.changes).toMatchObject({ name: conn, port: 5433, password: '********', reason: 'audit test' });
  });

  it('query changes: save_query snapshot, move_query diff, publish_query diff', async () => {
    const entries = await allEntries(`&target=${query}`);
    expect(entries.map((e) => e.action)).toEqual(['publish_query', 'move_query', 'save_query']);
    expect(entries[2].changes).toMatchObject({ sql: 'select 1 as one', collection: 'first', published: false });
    expect(entries[1].changes).toEqual({ collection: { from: 'first', to: 'second' }, keys_gaining_access: [], keys_losing_access: [] });
    expect(entries[0].changes).toEqual({ version: { from: null, to: 1 } });
  });

  it('no password, key secret or secret hash appears in any entry', async () => {
    const text = JSON.stringify(await allEntries());
    for (const secret of [PASSWORD, NEW_PASSWORD, keySecret, ADMIN_KEY]) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/secret_hash|"secret"/);
  });
});

describe('GET /api/v1/audit', () => {
  it('lists newest first with total, every action name and retention', async () => {
    const page = await expectOk(call('GET', '/api/v1/audit'));
    const seqs = page.items.map((e: any) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    expect(page.total).toBe(page.items.length);
    expect(page.actions).toEqual([...new Set(page.items.map((e: any) => e.action))].sort());
    expect(page.actions).toEqual(expect.arrayContaining(['create_connection', 'update_connection', 'delete_connection', 'save_query', 'move_query', 'create_key']));
    expect(page.retention).toEqual({ limit: null, entries: page.total, oldest_seq: 1, newest_seq: seqs[0], anchor_seq: 0 });
  });

  it('filters by action, actor and target, and counts the matches in total', async () => {
    const updates = await expectOk(call('GET', '/api/v1/audit?action=update_connection'));
    expect(updates.total).toBe(3);
    expect(updates.items.every((e: any) => e.action === 'update_connection')).toBe(true);
    const byAdmin = await expectOk(call('GET', '/api/v1/audit?actor=admin'));
    expect(byAdmin.items.every((e: any) => e.actor === 'admin')).toBe(true);
    expect(byAdmin.total).toBeGreaterThanOrEqual(8);
    expect((await expectOk(call('GET', '/api/v1/audit?actor=nobody'))).total).toBe(0);
    const byTarget = await expectOk(call('GET', `/api/v1/audit?target=${conn}`));
    expect(byTarget.total).toBe(5);
    // `actions` lists every action whatever the filters.
    expect(byTarget.actions).toContain('save_query');
  });

  it('q searches the target and the changes, case-insensitively; % and _ are literal', async () => {
    const inTarget = await expectOk(call('GET', `/api/v1/audit?q=${conn.slice(0, -3).toUpperCase()}`));
    expect(new Set(inTarget.items.map((e: any) => e.target))).toEqual(new Set([conn]));
    const inChanges = await expectOk(call('GET', '/api/v1/audit?q=audit%20test'));
    expect(inChanges.items.map((e: any) => e.action)).toEqual(['delete_connection']);
    expect((await expectOk(call('GET', '/api/v1/audit?q=%25'))).total).toBe(0);
  });

  it('pages with limit and cursor without overlap', async () => {
    const all = await allEntries();
    const first = await expectOk(call('GET', '/api/v1/audit?limit=3'));
    expect(first.items).toHaveLength(3);
    const second = await expectOk(call('GET', `/api/v1/audit?limit=3&cursor=${first.next_cursor}`));
    expect([...first.items, ...second.items].map((e: any) => e.seq)).toEqual(all.slice(0, 6).map((e) => e.seq));
    expect(second.total).toBe(all.length);
  });

  it('refuses unknown and malformed filters', async () => {
    const unknown = await call('GET', '/api/v1/audit?actions=x');
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('unknown_field');
    for (const bad of ['limit=0', 'limit=abc', 'cursor=nope!', 'action=a&action=b']) {
      const res = await call('GET', `/api/v1/audit?${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.code).toBe('invalid_request');
    }
  });

  it('is for administrators: a scoped key gets 403, no key 401', async () => {
    expect((await origin.call('GET', '/api/v1/audit', undefined, { 'x-api-key': keySecret })).status).toBe(403);
    expect((await origin.call('GET', '/api/v1/audit/verify')).status).toBe(401);
  });
});

describe('GET /api/v1/audit/verify and /delivery', () => {
  it('the chain the verbs wrote verifies', async () => {
    const newest = (await expectOk(call('GET', '/api/v1/audit?limit=1'))).items[0].seq;
    expect(await expectOk(call('GET', '/api/v1/audit/verify'))).toEqual({
      intact: true,
      first_seq: 1,
      last_seq: newest,
      keyed: false,
      keyed_from_seq: null,
      entries: newest,
      anchor_seq: 0,
    });
  });

  it('with no output configured, delivery lists none', async () => {
    const status = await expectOk(call('GET', '/api/v1/audit/delivery'));
    expect(status.outputs).toEqual([]);
    expect(status.last_seq).toBeGreaterThan(0);
  });
});

describe('SLUICE_AUDIT_LOG_LIMIT', () => {
  it('keeps the newest N entries and the chain verifies from its anchor', async () => {
    const limited = await startOrigin({ env: { SLUICE_AUDIT_LOG_LIMIT: '3' } });
    try {
      for (let i = 0; i < 5; i++) {
        const res = await limited.call('POST', '/api/v1/connections', { name: unique('kept'), db: 'duckdb' });
        expect(res.status).toBe(201);
      }
      const page = (await limited.call('GET', '/api/v1/audit')).body;
      // load_examples (seq 1) and five creates: the newest three are kept.
      expect(page.items.map((e: any) => e.seq)).toEqual([6, 5, 4]);
      expect(page.retention).toEqual({ limit: 3, entries: 3, oldest_seq: 4, newest_seq: 6, anchor_seq: 3 });
      expect(page.items[2].prev_hash).toMatch(/^[0-9a-f]{64}$/);
      expect((await limited.call('GET', '/api/v1/audit/verify')).body).toEqual({
        intact: true,
        first_seq: 4,
        last_seq: 6,
        keyed: false,
        keyed_from_seq: null,
        entries: 3,
        anchor_seq: 3,
      });
    } finally {
      await limited.stop();
    }
  });
});
