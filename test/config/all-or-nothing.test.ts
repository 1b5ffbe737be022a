import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, freshDatabase } from '../harness/postgres-store.ts';
import { type Origin, testFile } from '../harness/origin.ts';
import { configFile, exportRoot, newSecret, sendFile, startConfigOrigin } from './fixture.ts';
import { dumpStore } from './store-dump.ts';
import { unique } from '../harness/unique.ts';

/**
 * All or nothing, on a PostgreSQL store whose every table is compared
 * before and after: a file whose last object is refused changes nothing,
 * and neither does an origin killed (SIGKILL) in the middle of a large apply.
 */

let database: FreshDatabase;
let origin: Origin;
let root: string;

beforeAll(async () => {
  root = await exportRoot();
  database = await freshDatabase();
  origin = await startConfigOrigin({ template: false, env: { SLUICE_DATABASE_URL: database.url, SLUICE_EXPORT_DIRS: root } });
});

afterAll(async () => {
  await origin?.stop();
  await database?.drop();
});

describe('config apply is all or nothing', () => {
  it('changes nothing when the last object is refused, and lists every problem', async () => {
    const s = unique('aon');
    const seed = configFile({ connections: [{ name: `seed_${s}`, db: 'duckdb', database: testFile('seed.duckdb') }] });
    expect((await sendFile(origin, 'apply', seed)).status).toBe(200);
    const before = await dumpStore(database.url);
    const file = configFile({
      connections: [
        { name: `seed_${s}`, db: 'duckdb', database: testFile('changed.duckdb') },
        { name: `new_${s}`, db: 'duckdb', database: testFile('new.duckdb') },
      ],
      destinations: [{ name: `d_${s}`, url: root }],
      queries: [
        { name: `q_${s}`, sql: 'SELECT 1 AS one', connection_name: 'examples' },
        { name: `bad_${s}`, sql: 'SELECT 1; SELECT 2', connection_name: `nowhere_${s}` },
      ],
      roles: [{ name: `r_${s}`, connections: [`new_${s}`] }],
      api_keys: [{ name: `k_${s}`, role: `r_${s}`, secret_sha256: newSecret().sha256 }, { name: `nokey_${s}` }],
      exports: [{ name: `e_${s}`, query: `missing_${s}`, format: 'csv', destination: `d_${s}` }],
    });
    const res = await sendFile(origin, 'apply', file);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_config');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([
      'queries[1].connection_name',
      'queries[1].sql',
      'api_keys[1].secret_sha256',
      'exports[0].query',
    ]);
    expect(await dumpStore(database.url)).toEqual(before);
  });

  it('leaves the store as before when the origin is killed in the middle of a large apply', async () => {
    const s = unique('kill');
    const queries = Array.from({ length: 300 }, (_, i) => ({ name: `q${i}_${s}`, sql: `SELECT ${i} AS n`, connection_name: 'examples', collection: `c-${i % 7}` }));
    const before = await dumpStore(database.url);
    const pending = sendFile(origin, 'apply', configFile({ queries })).catch(() => null);
    // The apply is under way once it has written an audit entry (it holds the chain's lock until it ends).
    await holdsAuditLock(database.url);
    origin.process.kill('SIGKILL');
    await pending;
    await origin.stop();
    origin = await startConfigOrigin({ template: false, env: { SLUICE_DATABASE_URL: database.url, SLUICE_EXPORT_DIRS: root } });
    expect(await dumpStore(database.url)).toEqual(before);
    const after = await sendFile(origin, 'diff', configFile({ queries }));
    expect(after.body.counts.queries.create).toBe(300);
  });
});

/** Resolves once a session of the store holds the audit chain's advisory lock (7_311_002, origin/audit/record.ts). */
async function holdsAuditLock(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    for (;;) {
      const [row] = await sql`select count(*)::int as n from pg_locks where locktype = 'advisory' and objid = 7311002 and granted`;
      if (row.n > 0) return;
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}
