import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialect } from '../../origin/drivers/types.ts';
import { type FormatEnv, post, startFormatEnv } from '../formats/fixture.ts';
import type { TestDb } from '../query/fixture.ts';
import { seriesSql, startStream } from './fixture.ts';
import { eventually } from '../harness/eventually.ts';
import { unique } from '../harness/unique.ts';

/**
 * A client that goes away mid-stream: the statement stops in the database
 * (PostgreSQL's pg_stat_activity, MariaDB's processlist no longer show it
 * running or holding a transaction open), and the connection answers the
 * next queries at once. DuckDB and SQLite, embedded, answer promptly too.
 */

const HUGE = 100_000_000;
/** How long the database may take to let go of the statement. */
const SETTLE_MS = 10_000;

let env: FormatEnv;
beforeAll(async () => {
  env = await startFormatEnv();
});
afterAll(async () => {
  await env?.close();
});

/** Sessions still running the tagged statement (or holding its transaction), seen through the database's own client. */
async function running(db: TestDb, tag: string): Promise<number> {
  const pattern = `%${tag}%`;
  if (db.driver === 'postgres') {
    const [row] = await db.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE $1 AND state <> 'idle' AND pid <> pg_backend_pid()",
      [pattern],
    );
    return Number(row.n);
  }
  const [row] = await db.query(
    "SELECT count(*) AS n FROM information_schema.processlist WHERE info LIKE ? AND command <> 'Sleep' AND id <> connection_id()",
    [pattern],
  );
  return Number(row.n);
}

/** The connection answers: several quick reads in a row (more than one pooled session). */
async function answers(driver: Dialect): Promise<void> {
  for (let i = 0; i < 6; i++) {
    const t0 = Date.now();
    const res = await post(env.origin, { sql: `SELECT ${i} AS x`, connection_name: env.conn[driver] }, { format: 'csv' });
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe(`x\r\n${i}\r\n`);
    // A session still busy with the aborted stream would not answer for minutes.
    expect(Date.now() - t0, 'a read after the abort').toBeLessThan(15_000);
  }
}

/** Starts a stream of HUGE rows in `format`, reads `chunks` chunks of it, then aborts the request. */
async function startAndAbort(driver: Dialect, tag: string, format: string, chunks: number, beforeAbort?: () => Promise<void>) {
  const { res, controller } = await startStream(
    env.origin,
    { sql: seriesSql(driver, HUGE, tag), connection_name: env.conn[driver] },
    { format },
  );
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  let received = 0;
  for (let i = 0; i < chunks; i++) {
    const { value, done } = await reader.read();
    expect(done).toBe(false);
    received += value!.byteLength;
  }
  if (chunks > 0) expect(received).toBeGreaterThan(0);
  await beforeAbort?.();
  controller.abort();
  await reader.cancel().catch(() => {});
}

describe.each(['postgres', 'mysql'] as const)('%s', (driver) => {
  it('stops the statement in the database when the client aborts mid-stream, and the connection answers next', async () => {
    const db = env.dbs[driver];
    const tag = unique('abort');
    await startAndAbort(driver, tag, 'csv', 3, async () => {
      // The statement is there while the download is under way: the check below means something.
      await eventually(async () => (await running(db, tag)) > 0, { what: 'the statement runs before the abort', timeoutMs: 5_000 });
    });
    const stopped = await eventually(async () => (await running(db, tag)) === 0, { timeoutMs: SETTLE_MS }).then(() => true, () => false);
    // Soft, so the connection is still checked below when the statement lingers.
    expect.soft(stopped, `still running ${SETTLE_MS} ms after the abort`).toBe(true);
    await answers(driver);
  });

  it('stops a parquet stream (nothing sent yet) when the client aborts', async () => {
    const db = env.dbs[driver];
    const tag = unique('abortpq');
    await startAndAbort(driver, tag, 'parquet', 0, async () => {
      await eventually(async () => (await running(db, tag)) > 0, { what: 'the statement runs before the abort', timeoutMs: 5_000 });
    });
    const stopped = await eventually(async () => (await running(db, tag)) === 0, { timeoutMs: SETTLE_MS }).then(() => true, () => false);
    // Soft, so the connection is still checked below when the statement lingers.
    expect.soft(stopped, `still running ${SETTLE_MS} ms after the abort`).toBe(true);
    await answers(driver);
  });
});

/** The `sluice_stream_pipes` gauge: DuckDB streams written into a pipe now. */
async function pipes(): Promise<number> {
  const res = await env.origin.fetch('/metrics');
  return Number(/^sluice_stream_pipes (\S+)$/m.exec(await res.text())![1]);
}

describe('duckdb through a pipe', () => {
  it('gives its pipe back when the client aborts (the file is READ_ONLY: writes are off)', async () => {
    await startAndAbort('duckdb', unique('abortpipe'), 'csv', 3, async () => {
      expect(await pipes()).toBe(1);
    });
    await eventually(async () => (await pipes()) === 0, { what: 'the pipe is given back', timeoutMs: SETTLE_MS });
  });
});

describe.each(['duckdb', 'sqlite'] as const)('%s', (driver) => {
  it('answers promptly after a client aborts a huge stream', async () => {
    await startAndAbort(driver, unique('abort'), 'csv', 3);
    await answers(driver);
    await startAndAbort(driver, unique('abortpq'), 'parquet', 0, () => new Promise((r) => setTimeout(r, 300)));
    await answers(driver);
  });
});
