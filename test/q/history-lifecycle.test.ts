import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../origin/store/open.ts';
import { runs } from '../../origin/store/schema/index.ts';
import { type Origin, startOrigin, templateDir } from '../harness/origin.ts';
import { createQuery, getQ, history, requestIdOf } from './fixture.ts';

/** History across restarts of one data dir: a clean shutdown writes queued runs; old runs are trimmed. */

let dataDir: string;
let origin: Origin | undefined;
const DAY = 86_400_000;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sluice-history-'));
  await cp(templateDir(), dataDir, { recursive: true });
});

afterAll(async () => {
  await origin?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const start = (env: Record<string, string> = {}) => startOrigin({ dataDir, env: { TZ: 'Europe/Paris', ...env } });

describe('history across restarts', () => {
  it('writes the runs still queued when the server is stopped', async () => {
    origin = await start();
    const name = await createQuery(origin, { sql: 'SELECT 1 AS one' });
    const res = await getQ(origin, name);
    expect(res.status).toBe(200);
    // Stopped at once: the run is still in the queue (written every ~250 ms), so only the shutdown flush saves it.
    await origin.stop();
    origin = await start();
    const listed = await history(origin, { query: name });
    expect(listed.items.map((i) => i.request_id)).toEqual([requestIdOf(res)]);
    await origin.stop();
    origin = undefined;
  });

  it('deletes runs older than SLUICE_HISTORY_RETENTION_DAYS and keeps the rest', async () => {
    const store = await openStore({ dataDir });
    const old = (days: number, query: string) => ({
      time: new Date(Date.now() - days * DAY),
      query,
      version: 1,
      connection: 'examples',
      status: 'success' as const,
      rows: 1,
      durationMs: 1,
      transport: 'http',
    });
    try {
      await store.db.insert(runs).values([old(40, 'retention-old'), old(10, 'retention-recent'), old(400, 'retention-ancient')]);
    } finally {
      await store.close();
    }

    // 0 keeps history forever. The startup trim is under way before the origin listens, and a history read waits for it.
    origin = await start({ SLUICE_HISTORY_RETENTION_DAYS: '0' });
    const kept = (await history(origin, { until: new Date(Date.now() - DAY).toISOString() })).items.map((i) => i.query);
    expect(kept).toEqual(expect.arrayContaining(['retention-old', 'retention-recent', 'retention-ancient']));
    await origin.stop();

    // 30 days: trimmed at startup, without waiting for a run.
    origin = await start({ SLUICE_HISTORY_RETENTION_DAYS: '30' });
    const left = (await history(origin, { until: new Date(Date.now() - DAY).toISOString() })).items.map((i) => i.query);
    expect(left).toEqual(['retention-recent']);
  });

  it('refuses to start with a malformed history setting, naming it', async () => {
    await expect(start({ SLUICE_HISTORY_LIMIT: 'lots' })).rejects.toThrow(/SLUICE_HISTORY_LIMIT/);
    await expect(start({ SLUICE_HISTORY_RETENTION_DAYS: '-1' })).rejects.toThrow(/SLUICE_HISTORY_RETENTION_DAYS/);
  });
});
