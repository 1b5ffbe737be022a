import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asc, eq, is, sql } from 'drizzle-orm';
import { PgTable, getTableConfig } from 'drizzle-orm/pg-core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { recordAudit } from '../../origin/audit/record.ts';
import { type Store, type StoreDb, openStore } from '../../origin/store/open.ts';
import * as schema from '../../origin/store/schema/index.ts';
import { auditLog, connections, deletedConnections, examplesState } from '../../origin/store/schema/index.ts';
import journal from '../../origin/store/migrations/meta/_journal.json' with { type: 'json' };
import { freshDatabase } from '../harness/postgres-store.ts';
import { unique } from '../harness/unique.ts';

/**
 * The metadata store on both backends (embedded PGlite and a Postgres
 * server): migrations, restarts, transactions and the audit hash chain.
 * Every test that needs a known state opens its own empty store.
 */

type Kind = 'pglite' | 'postgres';

/** An empty store location: open it as often as needed (one handle at a time on PGlite). */
interface Location {
  open(): Promise<Store>;
  /** The Postgres URL, when the backend is a server. */
  url?: string;
  remove(): Promise<void>;
}

async function location(kind: Kind): Promise<Location> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sluice-store-'));
  if (kind === 'pglite') {
    return {
      open: () => openStore({ dataDir }),
      remove: () => rm(dataDir, { recursive: true, force: true }),
    };
  }
  const database = await freshDatabase();
  return {
    url: database.url,
    // The data dir is ignored by a Postgres store; pass one anyway, as the origin does.
    open: () => openStore({ databaseUrl: database.url, dataDir }),
    async remove() {
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}


/** Sorted keys at every depth: written here, independently of the product's canonicalJson. */
function canonical(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return JSON.stringify(sort(value));
}

type AuditRow = typeof auditLog.$inferSelect;

/** Recomputes every hash from the rows alone; returns the first seq that does not verify, or null. */
function brokenLink(rows: AuditRow[]): number | null {
  let previous = '';
  for (const row of rows) {
    const entry = canonical({
      seq: row.seq,
      timestamp: row.timestamp.toISOString(),
      actor: row.actor,
      action: row.action,
      target: row.target,
      changes: row.changes,
    });
    const expected = createHash('sha256').update(previous).update(entry).digest('hex');
    if (row.hash !== expected) return row.seq;
    previous = row.hash;
  }
  return null;
}

const chain = (db: StoreDb) => db.select().from(auditLog).orderBy(asc(auditLog.seq));

class Rollback extends Error {}

/** Runs `change` in a transaction that then throws, and checks the throw came through. */
async function rolledBack(db: StoreDb, change: (tx: StoreDb) => Promise<void>): Promise<void> {
  await expect(
    db.transaction(async (tx) => {
      await change(tx as unknown as StoreDb);
      throw new Rollback('roll it back');
    }),
  ).rejects.toBeInstanceOf(Rollback);
}

const tableNames = (db: StoreDb, schemaName: string) =>
  db
    .execute<{ table_name: string }>(
      sql`select table_name from information_schema.tables where table_schema = ${schemaName} and table_type = 'BASE TABLE' order by table_name`,
    )
    .then((r) => rowsOf<{ table_name: string }>(r).map((t) => t.table_name));

/** drizzle's `execute` answers an array (postgres-js) or `{rows}` (PGlite). */
function rowsOf<T>(result: unknown): T[] {
  return Array.isArray(result) ? (result as T[]) : ((result as { rows: T[] }).rows ?? []);
}

const declaredTables = Object.values(schema)
  .filter((value) => is(value, PgTable))
  .map((table) => getTableConfig(table as PgTable));

/** `table.column PRIMARY KEY` / `UNIQUE` for every key the drizzle schema declares. */
function declaredKeys(): string[] {
  return declaredTables.flatMap((table) => [
    ...table.columns.filter((c) => c.primary).map((c) => `${table.name}.${c.name} PRIMARY KEY`),
    ...table.primaryKeys.flatMap((pk) => pk.columns.map((c) => `${table.name}.${c.name} PRIMARY KEY`)),
    ...table.columns.filter((c) => c.isUnique).map((c) => `${table.name}.${c.name} UNIQUE`),
    ...table.uniqueConstraints.flatMap((u) => u.columns.map((c) => `${table.name}.${c.name} UNIQUE`)),
  ]);
}

const open: Store[] = [];
const locations: Location[] = [];

async function fresh(kind: Kind): Promise<Location> {
  const loc = await location(kind);
  locations.push(loc);
  return loc;
}

/** Opens a store that afterEach closes, if the test did not. */
async function track(store: Promise<Store>): Promise<Store> {
  const s = await store;
  open.push(s);
  return s;
}

async function close(store: Store): Promise<void> {
  open.splice(open.indexOf(store), 1);
  await store.close();
}

afterEach(async () => {
  for (const store of open.splice(0)) await store.close().catch(() => {});
});

afterAll(async () => {
  for (const loc of locations.splice(0)) await loc.remove();
});

describe.each<{ kind: Kind }>([{ kind: 'pglite' }, { kind: 'postgres' }])('$kind store', ({ kind }) => {
  describe('migrations', () => {
    it('creates every table of the schema, column for column', async () => {
      const loc = await fresh(kind);
      const store = await track(loc.open());
      expect(store.kind).toBe(kind);
      const db = store.db;

      expect(await tableNames(db, 'public')).toEqual(declaredTables.map((t) => t.name).sort());
      expect(await tableNames(db, 'drizzle')).toEqual(['__drizzle_migrations']);

      const columns = rowsOf<{ table_name: string; column_name: string; is_nullable: string; column_default: string | null }>(
        await db.execute(
          sql`select table_name, column_name, is_nullable, column_default from information_schema.columns where table_schema = 'public'`,
        ),
      );
      for (const table of declaredTables) {
        const actual = columns.filter((c) => c.table_name === table.name);
        expect(actual.map((c) => c.column_name).sort(), table.name).toEqual(table.columns.map((c) => c.name).sort());
        for (const column of table.columns) {
          const found = actual.find((c) => c.column_name === column.name)!;
          expect(found.is_nullable, `${table.name}.${column.name} nullable`).toBe(column.notNull ? 'NO' : 'YES');
          expect(found.column_default !== null, `${table.name}.${column.name} has a default`).toBe(column.hasDefault);
        }
      }

      // Every primary key and unique constraint of the schema is in place.
      const constraints = rowsOf<{ table_name: string; constraint_type: string; column_name: string }>(
        await db.execute(sql`
          select tc.table_name, tc.constraint_type, kcu.column_name
          from information_schema.table_constraints tc
          join information_schema.key_column_usage kcu
            on kcu.constraint_name = tc.constraint_name and kcu.table_schema = tc.table_schema
          where tc.table_schema = 'public' and tc.constraint_type in ('PRIMARY KEY', 'UNIQUE')`),
      ).map((c) => `${c.table_name}.${c.column_name} ${c.constraint_type}`);
      expect(constraints.sort()).toEqual(declaredKeys().sort());

      // One row per migration in the journal.
      const applied = rowsOf<{ created_at: string }>(await db.execute(sql`select created_at from drizzle.__drizzle_migrations order by id`));
      expect(applied.map((m) => Number(m.created_at))).toEqual(journal.entries.map((e) => e.when));
    });

    if (kind === 'pglite') it('runs with 16 MB of shared buffers, and initdb\'s own settings, when new and reopened', async () => {
      const loc = await fresh(kind);
      for (let open = 0; open < 2; open++) {
        const store = await track(loc.open());
        const settings = rowsOf<{ name: string; setting: string; unit: string | null }>(
          await store.db.execute(sql`select name, setting, unit from pg_settings where name in ('shared_buffers', 'max_connections')`),
        );
        expect(Object.fromEntries(settings.map((s) => [s.name, `${s.setting} ${s.unit ?? ''}`.trim()]))).toEqual({
          shared_buffers: '2048 8kB',
          max_connections: '100',
        });
        await close(store);
      }
    });

    it('opening a migrated store again is a no-op that keeps every row', async () => {
      const loc = await fresh(kind);
      let store = await track(loc.open());
      const name = unique('kept');
      await store.db.transaction(async (tx) => {
        await tx.insert(connections).values({ name, db: 'duckdb', database: 'x.duckdb', options: { a: [1, 'two'] }, createdBy: 'tester' });
        await tx.insert(deletedConnections).values({ name: unique('gone'), snapshot: { password: '********' }, deletedBy: 'tester', reason: 'why' });
        await tx.insert(examplesState).values({ status: 'loaded' });
        await recordAudit(tx as unknown as StoreDb, { actor: 'tester', action: 'create_connection', target: name, workspace: null, changes: { name } });
      });
      const snapshot = async (db: StoreDb) => ({
        connections: await db.select().from(connections).orderBy(asc(connections.id)),
        deleted: await db.select().from(deletedConnections).orderBy(asc(deletedConnections.id)),
        examples: await db.select().from(examplesState),
        audit: await chain(db),
        migrations: rowsOf(await db.execute(sql`select id, hash, created_at from drizzle.__drizzle_migrations order by id`)),
      });
      const before = await snapshot(store.db);
      expect(before.connections).toHaveLength(1);
      expect(before.audit).toHaveLength(1);
      await close(store);

      for (let restart = 0; restart < 2; restart++) {
        store = await track(loc.open());
        expect(await snapshot(store.db)).toEqual(before);
        await close(store);
      }

      // And the reopened store takes new writes where the old one left off.
      store = await track(loc.open());
      await store.db.transaction((tx) =>
        recordAudit(tx as unknown as StoreDb, { actor: 'tester', action: 'update_connection', target: name, workspace: null, changes: {} }),
      );
      const after = await chain(store.db);
      expect(after.map((e) => e.seq)).toEqual([1, 2]);
      expect(brokenLink(after)).toBeNull();
    });

    // Several handles on one server database: only meaningful for Postgres.
    if (kind === 'postgres') it('stores opened concurrently on a new database all migrate it once (advisory lock)', async () => {
      const loc = await fresh(kind);
      const stores = await Promise.all(Array.from({ length: 4 }, () => track(loc.open())));
      for (const store of stores) expect(store.kind).toBe('postgres');
      const db = stores[0].db;
      expect(await tableNames(db, 'public')).toEqual(declaredTables.map((t) => t.name).sort());
      const applied = rowsOf(await db.execute(sql`select hash from drizzle.__drizzle_migrations`));
      expect(applied).toHaveLength(journal.entries.length);
      // Each handle works on the same data.
      const name = unique('shared');
      await stores[1].db.insert(connections).values({ name, db: 'duckdb' });
      for (const store of stores) expect(await store.db.select().from(connections).where(eq(connections.name, name))).toHaveLength(1);
    });
  });

  describe('transactions', () => {
    it('a thrown error rolls back every change of the transaction', async () => {
      const loc = await fresh(kind);
      const store = await track(loc.open());
      const db = store.db;
      const existing = unique('existing');
      await db.insert(connections).values({ name: existing, db: 'duckdb', database: 'before.duckdb' });
      const state = async () => ({
        connections: await db.select().from(connections).orderBy(asc(connections.id)),
        deleted: await db.select().from(deletedConnections),
        examples: await db.select().from(examplesState),
        audit: await chain(db),
      });
      const before = await state();

      const added = unique('added');
      await rolledBack(db, async (tx) => {
        await tx.insert(connections).values({ name: added, db: 'duckdb' });
        await tx.update(connections).set({ database: 'after.duckdb', revision: 2 }).where(eq(connections.name, existing));
        await tx.insert(deletedConnections).values({ name: added, snapshot: {}, deletedBy: 'tester', reason: 'r' });
        await tx.insert(examplesState).values({ status: 'partial' });
        await recordAudit(tx, { actor: 'tester', action: 'create_connection', target: added, workspace: null, changes: {} });
        // The changes are visible inside the transaction before it fails.
        expect(await tx.select().from(connections).where(eq(connections.name, added))).toHaveLength(1);
      });
      expect(await state()).toEqual(before);

      // A statement that fails in the database rolls back what came before it too.
      await expect(
        db.transaction(async (tx) => {
          await tx.insert(connections).values({ name: added, db: 'duckdb' });
          await tx.insert(connections).values({ name: existing, db: 'duckdb' }); // unique violation
        }),
      ).rejects.toThrow();
      expect(await state()).toEqual(before);

      // The store is still usable and commits normally afterwards.
      await db.transaction(async (tx) => {
        await tx.insert(connections).values({ name: added, db: 'duckdb' });
      });
      expect(await db.select().from(connections).where(eq(connections.name, added))).toHaveLength(1);
    });
  });

  describe('audit chain', () => {
    it('gives gap-free seqs from 1 and hashes that recompute from the rows; a rolled-back entry never exists', async () => {
      const loc = await fresh(kind);
      const store = await track(loc.open());
      const db = store.db;
      const changes: Record<string, unknown>[] = [
        { name: 'a', db: 'duckdb' },
        { zeta: 1, alpha: { y: [3, { b: 1, a: 2 }], x: null }, mid: 'é 中 🎬 "q" \\ \n' },
        {},
        { port: { from: 5432, to: 5433 }, password: 'changed', big: 9007199254740991, neg: -1.5, flag: false },
      ];
      const ghost = unique('ghost');
      for (const [i, change] of changes.entries()) {
        await db.transaction((tx) => recordAudit(tx as unknown as StoreDb, { actor: 'tester', action: `act_${i}`, target: `t${i}`, workspace: null, changes: change }));
        if (i === 1) {
          // Recorded, then rolled back with its change: not in the chain, and its seq is reused.
          await rolledBack(db, async (tx) => {
            await tx.insert(connections).values({ name: ghost, db: 'duckdb' });
            await recordAudit(tx, { actor: 'tester', action: 'create_connection', target: ghost, workspace: null, changes: { name: ghost } });
          });
        }
      }

      const rows = await chain(db);
      expect(rows.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
      expect(rows.map((r) => [r.actor, r.action, r.target])).toEqual(changes.map((_, i) => ['tester', `act_${i}`, `t${i}`]));
      expect(rows.map((r) => r.changes)).toEqual(changes);
      expect(rows.some((r) => r.target === ghost)).toBe(false);
      expect(await db.select().from(connections).where(eq(connections.name, ghost))).toHaveLength(0);

      // seq 1 hashes the entry alone; each later one chains the previous hash.
      const first = rows[0];
      expect(first.hash).toBe(
        createHash('sha256')
          .update(canonical({ seq: 1, timestamp: first.timestamp.toISOString(), actor: 'tester', action: 'act_0', target: 't0', changes: changes[0] }))
          .digest('hex'),
      );
      expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.hash))).toBe(true);
      expect(brokenLink(rows)).toBeNull();

      // The recomputation is not vacuous: a changed value breaks the link at that entry.
      const tampered = rows.map((r) => ({ ...r }));
      tampered[2] = { ...tampered[2], changes: { tampered: true } };
      expect(brokenLink(tampered)).toBe(3);
    });

    it('concurrent transactions on one handle still produce a gap-free chain', async () => {
      const loc = await fresh(kind);
      const store = await track(loc.open());
      const db = store.db;
      const names = Array.from({ length: 20 }, (_, i) => unique(`one_${i}`));
      await Promise.all(
        names.map((name) =>
          db.transaction(async (tx) => {
            await tx.insert(connections).values({ name, db: 'duckdb' });
            await recordAudit(tx as unknown as StoreDb, { actor: 'tester', action: 'create_connection', target: name, workspace: null, changes: { name } });
          }),
        ),
      );
      const rows = await chain(db);
      expect(rows.map((r) => r.seq)).toEqual(names.map((_, i) => i + 1));
      expect(rows.map((r) => r.target).sort()).toEqual([...names].sort());
      expect(brokenLink(rows)).toBeNull();
    });

    // Several handles on one server database: only meaningful for Postgres.
    if (kind === 'postgres') it(
      '50 concurrent transactions through two store handles (two origins) give seq 1..50 and a chain that verifies',
      async () => {
        const loc = await fresh(kind);
        const [a, b] = await Promise.all([track(loc.open()), track(loc.open())]);
        const names = Array.from({ length: 50 }, (_, i) => unique(`two_${i}`));
        const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
        const results = await Promise.allSettled(
          names.map((name, i) =>
            (i % 2 === 0 ? a : b).db.transaction(async (tx) => {
              await tx.insert(connections).values({ name, db: 'duckdb', createdBy: i % 2 === 0 ? 'origin-a' : 'origin-b' });
              // Spread the transactions out so they overlap in varied orders.
              await sleep((i * 7) % 11);
              await recordAudit(tx as unknown as StoreDb, {
                actor: i % 2 === 0 ? 'origin-a' : 'origin-b',
                action: 'create_connection',
                target: name,
                workspace: null, changes: { name, i },
              });
              await tx.update(connections).set({ revision: 2 }).where(eq(connections.name, name));
            }),
          ),
        );
        expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);

        // Read back through a third handle: what a restarted origin would see.
        const reader = await track(loc.open());
        const rows = await chain(reader.db);
        expect(rows.map((r) => r.seq)).toEqual(names.map((_, i) => i + 1));
        expect(new Set(rows.map((r) => r.target)).size).toBe(50);
        expect(rows.map((r) => r.target).sort()).toEqual([...names].sort());
        expect(new Set(rows.map((r) => r.hash)).size).toBe(50);
        expect(rows.filter((r) => r.actor === 'origin-a')).toHaveLength(25);
        expect(brokenLink(rows)).toBeNull();
        expect(await reader.db.select().from(connections)).toHaveLength(50);
      },
    );
  });
});
