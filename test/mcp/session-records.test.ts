import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MAX_SESSIONS_PER_CALLER,
  MCP_SESSIONS_CHANNEL,
  claimSession,
  endIdleSessions,
  endSession,
  liveSessions,
  recordSession,
  sessionIdHash,
} from '../../origin/services/mcp/session-records.ts';
import { type Store, openStore } from '../../origin/store/open.ts';
import { rowsOf } from '../../origin/store/raw-rows.ts';
import { eventually } from '../harness/eventually.ts';
import { type FreshDatabase, freshDatabase } from '../harness/postgres-store.ts';

/**
 * The store's record of MCP sessions (session-records.ts, ADR 0033) on both
 * store kinds: a session is found only by its owner while not idle past the
 * limit, a caller's sessions past the limit end its least recently used, and
 * every end (a `DELETE`, the idle sweep) is announced on the channel the
 * other origins listen on.
 */

const INIT = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'agent', version: '1' } };
let n = 0;
const newHash = () => sessionIdHash(`session-${process.pid}-${++n}`);

describe.each(['pglite', 'postgres'] as const)('MCP session records on %s', (kind) => {
  let dir: string;
  let database: FreshDatabase | undefined;
  let store: Store;
  const heard: string[] = [];
  let listener: postgres.Sql | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sluice-mcp-records-'));
    if (kind === 'postgres') {
      database = await freshDatabase();
      store = await openStore({ databaseUrl: database.url, dataDir: dir });
      listener = postgres(database.url, { max: 1, onnotice: () => {} });
      await listener.listen(MCP_SESSIONS_CHANNEL, (hash) => heard.push(hash));
    } else {
      store = await openStore({ dataDir: dir });
    }
  }, 60_000);

  afterAll(async () => {
    await listener?.end({ timeout: 5 });
    await store?.close();
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  /** Ends are announced on a shared store; the embedded one has no one to tell. */
  const announced = async (hash: string) => {
    if (kind === 'postgres') await eventually(() => heard.includes(hash), { what: `the end of ${hash.slice(0, 8)} heard` });
  };

  it('finds a session for its owner only', async () => {
    const hash = newHash();
    expect(await recordSession(store, hash, 'key:a', INIT)).toEqual([]);
    expect(await claimSession(store, hash, 'key:a')).toEqual(INIT);
    expect(await claimSession(store, hash, 'key:b')).toBeNull();
    expect(await claimSession(store, newHash(), 'key:a')).toBeNull();
  });

  it('ends a session everywhere: gone from the store, its end announced', async () => {
    const hash = newHash();
    await recordSession(store, hash, 'key:a', INIT);
    await endSession(store, hash);
    expect(await claimSession(store, hash, 'key:a')).toBeNull();
    await announced(hash);
  });

  it('idle past the limit, a session is not found, and the sweep ends it and announces it', async () => {
    const [idle, used] = [newHash(), newHash()];
    await recordSession(store, idle, 'key:idle', INIT);
    await recordSession(store, used, 'key:idle', INIT);
    await store.db.execute(sql`update mcp_sessions set last_used = now() - interval '31 minutes' where id_hash = ${idle}`);
    expect([...(await liveSessions(store, [idle, used]))]).toEqual([used]);
    expect(await claimSession(store, idle, 'key:idle')).toBeNull();
    expect(await endIdleSessions(store)).toEqual([idle]);
    await announced(idle);
    expect(rowsOf(await store.db.execute(sql`select 1 from mcp_sessions where id_hash = ${idle}`))).toEqual([]);
    expect(await claimSession(store, used, 'key:idle')).toEqual(INIT);
  });

  it(`past ${MAX_SESSIONS_PER_CALLER} sessions of a caller, its least recently used ends; other callers keep theirs`, async () => {
    const other = newHash();
    await recordSession(store, other, 'key:other', INIT);
    const hashes = Array.from({ length: MAX_SESSIONS_PER_CALLER }, newHash);
    for (const hash of hashes) expect(await recordSession(store, hash, 'key:many', INIT)).toEqual([]);
    // The oldest is used again: the second oldest is now the least recently used.
    await claimSession(store, hashes[0]!, 'key:many');
    const newest = newHash();
    expect(await recordSession(store, newest, 'key:many', INIT)).toEqual([hashes[1]]);
    await announced(hashes[1]!);
    const count = rowsOf<{ n: number }>(await store.db.execute(sql`select count(*)::int as n from mcp_sessions where owner = 'key:many'`))[0]!.n;
    expect(count).toBe(MAX_SESSIONS_PER_CALLER);
    expect(await claimSession(store, other, 'key:other')).toEqual(INIT);
    expect(await claimSession(store, newest, 'key:many')).toEqual(INIT);
  });
});
