import mysql from 'mysql2/promise';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MY, PG, pgExec } from '../api/connections-fixtures.ts';
import type { Origin } from '../harness/origin.ts';
import { executeSql, expectQueryError, rowsOf, startQueryOrigin } from './fixture.ts';
import { unique } from '../harness/unique.ts';

/**
 * Functions with side effects on real PostgreSQL and MariaDB: refused with
 * writes off, and nothing happened (no large object, no notification, no
 * lock); run where writes are on, which shows each check could see the
 * effect. The statement corpus (guard.test.ts) covers every refused name.
 */

let reader: Origin;
let writer: Origin;
const conn = { reader: { pg: '', my: '' }, writer: { pg: '', my: '' } };

/** Large-object oids of this run: high and random, so parallel runs never meet. */
const oid = () => 3_000_000_000 + Math.floor(Math.random() * 1_000_000_000);
const written: number[] = [];

async function connect(origin: Origin, fields: Record<string, unknown>): Promise<string> {
  const name = unique('side');
  const res = await origin.call('POST', '/api/v1/connections', { name, ...fields });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return name;
}

beforeAll(async () => {
  [reader, writer] = await Promise.all([startQueryOrigin(), startQueryOrigin({ SLUICE_ALLOW_WRITES: '1' })]);
  const pg = { db: 'postgres', host: PG.host, port: PG.port, user: PG.user, database: PG.database };
  const my = { db: 'mysql', host: MY.host, port: MY.port, user: MY.user, database: MY.database };
  conn.reader = { pg: await connect(reader, pg), my: await connect(reader, my) };
  conn.writer = { pg: await connect(writer, pg), my: await connect(writer, my) };
});

afterAll(async () => {
  await Promise.all([reader?.stop(), writer?.stop()]);
  if (written.length > 0) await pgExec(...written.map((o) => `SELECT lo_unlink(${o})`)).catch(() => {});
});

const run = (origin: Origin, connection: string, sql: string) => executeSql(origin, { sql, connection_name: connection });

async function largeObjectExists(id: number): Promise<boolean> {
  const client = postgres({ ...PG, max: 1, onnotice: () => {} });
  try {
    const rows = await client.unsafe('SELECT 1 FROM pg_largeobject_metadata WHERE oid = $1', [id]);
    return rows.length > 0;
  } finally {
    await client.end({ timeout: 5 });
  }
}

/** Notifications on `channel` while `action` runs, and a moment after. */
async function notificationsDuring(channel: string, action: () => Promise<void>): Promise<string[]> {
  const client = postgres({ ...PG, max: 1, onnotice: () => {} });
  const seen: string[] = [];
  try {
    await client.listen(channel, (payload) => seen.push(payload));
    await action();
    await new Promise((resolve) => setTimeout(resolve, 500));
    return seen;
  } finally {
    await client.end({ timeout: 5 });
  }
}

describe('postgres', () => {
  it('refuses large-object writes with writes off, and no large object is made', async () => {
    const ids = [oid(), oid(), oid()];
    for (const sql of [`SELECT lo_from_bytea(${ids[0]}, 'hello'::bytea)`, `SELECT lo_import('/etc/hostname', ${ids[1]})`, `SELECT lo_create(${ids[2]})`]) {
      const body = expectQueryError(await run(reader, conn.reader.pg, sql), 403);
      expect(body.error).toMatch(/^Writes are disabled on this server: LO_\w+\(\) /);
    }
    for (const id of ids) expect(await largeObjectExists(id)).toBe(false);
  });

  it('runs one where writes are on, so the check above would have seen it', async () => {
    const id = oid();
    written.push(id);
    expect(rowsOf(await run(writer, conn.writer.pg, `SELECT lo_from_bytea(${id}, 'hello'::bytea) AS o`))).toEqual([{ o: id }]);
    expect(await largeObjectExists(id)).toBe(true);
  });

  it('refuses pg_notify with writes off: no listener hears it; with writes on one does', async () => {
    const channel = unique('sluice_chan');
    const refused = await notificationsDuring(channel, async () => {
      expectQueryError(await run(reader, conn.reader.pg, `SELECT pg_notify('${channel}', 'refused')`), 403);
    });
    expect(refused).toEqual([]);
    const allowed = await notificationsDuring(channel, async () => {
      rowsOf(await run(writer, conn.writer.pg, `SELECT pg_notify('${channel}', 'sent')`));
    });
    expect(allowed).toEqual(['sent']);
  });

  it('refuses session-wide settings and advisory locks; nothing is held', async () => {
    const key = 1_000_000 + Math.floor(Math.random() * 1_000_000_000);
    for (const sql of [`SELECT pg_advisory_lock(${key})`, `SELECT pg_try_advisory_lock(${key})`, "SELECT set_config('search_path', 'evil', false)"]) {
      expectQueryError(await run(reader, conn.reader.pg, sql), 403);
    }
    const client = postgres({ ...PG, max: 1, onnotice: () => {} });
    try {
      const held = await client.unsafe("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = $1", [key]);
      expect([...held]).toEqual([]);
    } finally {
      await client.end({ timeout: 5 });
    }
    // The transaction-local form is a read.
    expect(rowsOf(await run(reader, conn.reader.pg, "SELECT set_config('sluice.probe', 'y', true) AS v"))).toEqual([{ v: 'y' }]);
  });

  it('refuses reading server files, and the answer holds none of the file', async () => {
    const body = expectQueryError(await run(reader, conn.reader.pg, "SELECT pg_read_file('/etc/passwd') AS f"), 403);
    expect(body.error).toContain('PG_READ_FILE() reads a file on the database server');
    expect(JSON.stringify(body)).not.toContain('root:');
  });
});

describe('mariadb', () => {
  const isUsed = async (lock: string) => {
    const client = await mysql.createConnection({ ...MY, password: '' });
    try {
      const [rows] = await client.query('SELECT IS_USED_LOCK(?) AS holder', [lock]);
      return (rows as Array<{ holder: number | null }>)[0].holder !== null;
    } finally {
      await client.end();
    }
  };

  it('refuses GET_LOCK with writes off and no lock is held; with writes on the lock is taken for the request', async () => {
    const lock = unique('sluice_lock');
    const body = expectQueryError(await run(reader, conn.reader.my, `SELECT GET_LOCK('${lock}', 0) AS l`), 403);
    expect(body.error).toContain('GET_LOCK() takes or releases a lock');
    expect(await isUsed(lock)).toBe(false);
    expect(rowsOf(await run(writer, conn.writer.my, `SELECT GET_LOCK('${lock}', 0) AS l`))).toEqual([{ l: 1 }]);
    // The session's reset as it goes back to the pool (COM_RESET_CONNECTION) releases it.
    expect(await isUsed(lock)).toBe(false);
  });

  it('refuses LOAD_FILE and RELEASE_ALL_LOCKS with writes off', async () => {
    const file = expectQueryError(await run(reader, conn.reader.my, "SELECT LOAD_FILE('/etc/passwd') AS f"), 403);
    expect(JSON.stringify(file)).not.toContain('root:');
    expectQueryError(await run(reader, conn.reader.my, 'SELECT RELEASE_ALL_LOCKS() AS n'), 403);
    // Reading who holds a lock is no side effect.
    expect(rowsOf(await run(reader, conn.reader.my, "SELECT IS_FREE_LOCK('sluice_nobody') AS free"))).toEqual([{ free: 1 }]);
  });
});
