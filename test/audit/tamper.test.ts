import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KEYED_PREFIX, canonicalEntry, entryHash } from '../../origin/audit/chain.ts';
import { configureAudit } from '../../origin/audit/options.ts';
import { recordAudit } from '../../origin/audit/record.ts';
import { verifyChain } from '../../origin/audit/verify.ts';
import { SluiceError } from '../../origin/errors.ts';
import { type Store, openStore } from '../../origin/store/open.ts';
import { type FreshDatabase, freshDatabase } from '../harness/postgres-store.ts';

/**
 * The audit chain against a Postgres store edited behind the server's back:
 * rows changed, deleted and reordered directly in the database each give
 * their own `problem` from verify; keyed chains; retention keeps verifying
 * from its anchor.
 */

const KEY = 'k'.repeat(16) + '-audit-key-for-tests-0123456789';
const OTHER_KEY = 'o'.repeat(16) + '-another-audit-key-0123456789';

let database: FreshDatabase;
let dataDir: string;
let store: Store;
/** A plain connection for editing rows the way an intruder would. */
let raw: postgres.Sql;

beforeAll(async () => {
  database = await freshDatabase();
  dataDir = await mkdtemp(join(tmpdir(), 'sluice-audit-tamper-'));
  store = await openStore({ databaseUrl: database.url, dataDir });
  raw = postgres(database.url, { max: 1, onnotice: () => {} });
});

afterAll(async () => {
  configureAudit({ key: null, limit: null });
  await raw?.end({ timeout: 5 });
  await store?.close();
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

beforeEach(async () => {
  configureAudit({ key: null, limit: null });
  await raw`truncate audit_log, audit_anchor`;
});

async function write(count: number, from = 1): Promise<void> {
  for (let i = from; i < from + count; i++) {
    await store.db.transaction((tx) =>
      recordAudit(tx, { actor: i % 2 ? 'alice' : 'bob', action: `act_${i % 3}`, target: `t${i}`, workspace: null, changes: { n: i, port: { from: i, to: i + 1 } } }),
    );
  }
}

const verify = (key: string | null = null) => verifyChain(store.db, key);

async function brokenAt(key: string | null = null) {
  const result = await verify(key);
  expect(result.intact, JSON.stringify(result)).toBe(false);
  if (result.intact) throw new Error('unreachable');
  return result.break;
}

async function row(seq: number) {
  const [r] = await raw`select seq::int as seq, timestamp, actor, action, target, changes, prev_hash, hash from audit_log where seq = ${seq}`;
  return r;
}

/** The hash an intruder who knows the algorithm (not the key) computes for a row as it now is. */
function recomputed(r: Awaited<ReturnType<typeof row>>): string {
  return entryHash(r.prev_hash, canonicalEntry({ seq: r.seq, timestamp: r.timestamp, actor: r.actor, action: r.action, target: r.target, changes: r.changes }), null);
}

describe('an untouched chain', () => {
  it('verifies from seq 1 with the facts of the walk', async () => {
    await write(10);
    expect(await verify()).toEqual({ intact: true, first_seq: 1, last_seq: 10, keyed: false, keyed_from_seq: null, entries: 10, anchor_seq: 0 });
  });

  it('an empty chain is intact', async () => {
    expect(await verify()).toMatchObject({ intact: true, first_seq: null, last_seq: null, entries: 0 });
  });
});

describe('tampering', () => {
  it('an edited entry is `changed` at that entry', async () => {
    await write(10);
    await raw`update audit_log set changes = ${raw.json({ n: 999 })} where seq = 5`;
    expect(await brokenAt()).toMatchObject({ seq: 5, action: 'act_2', problem: 'changed' });
  });

  it('an edited actor or timestamp is `changed` too', async () => {
    await write(6);
    await raw`update audit_log set actor = 'mallory' where seq = 3`;
    expect(await brokenAt()).toMatchObject({ seq: 3, problem: 'changed' });
    await raw`truncate audit_log`;
    await write(6);
    await raw`update audit_log set timestamp = timestamp - interval '1 hour' where seq = 2`;
    expect(await brokenAt()).toMatchObject({ seq: 2, problem: 'changed' });
  });

  it('an edited entry whose hash was recomputed is `changed_before` at the next entry', async () => {
    await write(10);
    await raw`update audit_log set changes = ${raw.json({ n: 999 })} where seq = 5`;
    await raw`update audit_log set hash = ${recomputed(await row(5))} where seq = 5`;
    expect(await brokenAt()).toMatchObject({ seq: 6, action: 'act_0', problem: 'changed_before' });
  });

  it('a deleted entry is `missing`, reported at the entry after the gap', async () => {
    await write(10);
    await raw`delete from audit_log where seq in (4, 5)`;
    expect(await brokenAt()).toMatchObject({ seq: 6, problem: 'missing', expected_seq: 4 });
  });

  it('deleting the first entries is `missing` too', async () => {
    await write(5);
    await raw`delete from audit_log where seq = 1`;
    expect(await brokenAt()).toMatchObject({ seq: 2, problem: 'missing', expected_seq: 1 });
  });

  it('a deleted entry with the later ones renumbered to close the gap is caught by the chain', async () => {
    await write(8);
    await raw`delete from audit_log where seq = 4`;
    await raw`update audit_log set seq = seq - 1 where seq > 4`;
    // The entry now at 4 was written as 5: it verifies only at its own place.
    expect(await brokenAt()).toMatchObject({ seq: 4, problem: 'out_of_order' });
  });

  it('two entries swapped are `out_of_order`', async () => {
    await write(10);
    await raw.begin(async (tx) => {
      await tx`update audit_log set seq = -1 where seq = 4`;
      await tx`update audit_log set seq = 4 where seq = 5`;
      await tx`update audit_log set seq = 5 where seq = -1`;
    });
    expect(await brokenAt()).toMatchObject({ seq: 4, problem: 'out_of_order' });
  });

  it('an entry moved far from its place is `out_of_order`', async () => {
    await write(12);
    await raw.begin(async (tx) => {
      await tx`update audit_log set seq = -1 where seq = 2`;
      await tx`update audit_log set seq = 2 where seq = 11`;
      await tx`update audit_log set seq = 11 where seq = -1`;
    });
    expect(await brokenAt()).toMatchObject({ seq: 2, problem: 'out_of_order' });
  });

  it('an unkeyed entry after keyed ones is `unkeyed_after_keyed`', async () => {
    configureAudit({ key: KEY, limit: null });
    await write(5);
    // The server restarted without its audit key: the next entry is plain SHA-256.
    configureAudit({ key: null, limit: null });
    await write(2, 6);
    expect(await brokenAt(KEY)).toMatchObject({ seq: 6, problem: 'unkeyed_after_keyed' });
  });

  it('a keyed entry rewritten as plain SHA-256 by an intruder is `unkeyed_after_keyed`', async () => {
    configureAudit({ key: KEY, limit: null });
    await write(6);
    await raw`update audit_log set changes = ${raw.json({ n: 999 })} where seq = 4`;
    await raw`update audit_log set hash = ${recomputed(await row(4))} where seq = 4`;
    expect(await brokenAt(KEY)).toMatchObject({ seq: 4, problem: 'unkeyed_after_keyed' });
  });

  it('an edited keyed entry cannot be re-signed without the key: `changed` at that entry', async () => {
    configureAudit({ key: KEY, limit: null });
    await write(6);
    const r = await row(3);
    const forged = entryHash(r.prev_hash, canonicalEntry({ seq: r.seq, timestamp: r.timestamp, actor: r.actor, action: r.action, target: r.target, changes: { n: 999 } }), OTHER_KEY);
    await raw`update audit_log set changes = ${raw.json({ n: 999 })}, hash = ${forged} where seq = 3`;
    expect(await brokenAt(KEY)).toMatchObject({ seq: 3, problem: 'changed' });
  });
});

describe('keyed chain', () => {
  it('stores HMAC-SHA-256 hashes marked keyed and verifies only with the key', async () => {
    await write(2);
    configureAudit({ key: KEY, limit: null });
    await write(3, 3);
    const rows = await raw`select seq::int as seq, hash from audit_log order by seq`;
    expect(rows.map((r) => r.hash.startsWith(KEYED_PREFIX))).toEqual([false, false, true, true, true]);
    expect(rows.every((r) => /^(hmac-sha256:)?[0-9a-f]{64}$/.test(r.hash))).toBe(true);
    expect(await verify(KEY)).toEqual({ intact: true, first_seq: 1, last_seq: 5, keyed: true, keyed_from_seq: 3, entries: 5, anchor_seq: 0 });
    // Another key does not verify it; no key cannot verify it at all.
    expect(await brokenAt(OTHER_KEY)).toMatchObject({ seq: 3, problem: 'changed' });
    const refused = await verify(null).catch((err) => err);
    expect(refused).toBeInstanceOf(SluiceError);
    expect(refused.code).toBe('audit_key_required');
  });
});

describe('retention', () => {
  it('keeps the newest N, anchors the chain on the newest removed entry, and keeps verifying', async () => {
    configureAudit({ key: null, limit: 5 });
    await write(12);
    const seqs = (await raw`select seq::int as seq from audit_log order by seq`).map((r) => r.seq);
    expect(seqs).toEqual([8, 9, 10, 11, 12]);
    const [anchor] = await raw`select seq::int as seq, hash from audit_anchor`;
    expect(anchor.seq).toBe(7);
    expect((await row(8)).prev_hash).toBe(anchor.hash);
    expect(await verify()).toEqual({ intact: true, first_seq: 8, last_seq: 12, keyed: false, keyed_from_seq: null, entries: 5, anchor_seq: 7 });
  });

  it('a keyed chain under retention still verifies, and tampering is still found', async () => {
    configureAudit({ key: KEY, limit: 3 });
    await write(9);
    expect(await verify(KEY)).toMatchObject({ intact: true, first_seq: 7, last_seq: 9, keyed: true, keyed_from_seq: 7, anchor_seq: 6 });
    await raw`delete from audit_log where seq = 7`;
    expect(await brokenAt(KEY)).toMatchObject({ seq: 8, problem: 'missing', expected_seq: 7 });
  });

  it('a changed anchor is `changed_before` at the first kept entry', async () => {
    configureAudit({ key: null, limit: 4 });
    await write(8);
    await raw`update audit_anchor set hash = ${'0'.repeat(64)}`;
    expect(await brokenAt()).toMatchObject({ seq: 5, problem: 'changed_before' });
  });
});

describe('what an entry may hold', () => {
  it('masks passwords and secrets whatever a verb passes, keeping counts and flags', async () => {
    const issued = `slc_${'A1b2C3d4'.repeat(4)}`;
    await store.db.transaction((tx) =>
      recordAudit(tx, {
        actor: 'tester',
        action: 'update_thing',
        target: 'x',
        workspace: null, changes: {
          password: 'hunter2',
          options: { password: 'inner-secret', sslmode: 'require' },
          db_password: { from: 'a', to: 'b' },
          secret_hash: 'abcdef',
          secret_sha256: 'abcdef',
          key_secrets: ['one', 'two'],
          token: 'tok',
          note: issued,
          names: [issued, 'plain'],
          secrets_shown: 2,
          previous_secret_active: true,
          previous_secret_expires_at: '2030-01-01',
        },
      }),
    );
    const [entry] = await raw`select changes from audit_log`;
    expect(entry.changes).toEqual({
      password: '********',
      options: { password: '********', sslmode: 'require' },
      db_password: 'changed',
      secret_hash: '********',
      secret_sha256: '********',
      key_secrets: '********',
      token: '********',
      note: '********',
      names: ['********', 'plain'],
      secrets_shown: 2,
      previous_secret_active: true,
      previous_secret_expires_at: '2030-01-01',
    });
    expect(await verify()).toMatchObject({ intact: true });
  });
});
