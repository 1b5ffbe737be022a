/**
 * The baseline server of small-query and paged-json: a bare Hono route on
 * @hono/node-server that makes the same driver call as the origin (the
 * project's own driver classes, same pool settings) and answers with
 * `JSON.stringify` of the rows as objects. No key check, logging, store
 * lookup, SQL analysis or format layer: what the origin adds is the difference.
 * Started by the bench as its own process; prints `{"port":N}` and `listening`.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createDriver } from '../origin/drivers/registry.ts';
import type { ConnectionSettings, Driver } from '../origin/drivers/types.ts';
import { Instant, type Value } from '../origin/values.ts';
import { pgConnectionFields } from './lib/dataset.ts';

const env = { poolSize: 5, poolMax: 10, poolIdleTimeoutMs: 300_000, allowWrites: false };
const pg = pgConnectionFields(process.env.BENCH_PG_URL!);
const drivers: Record<string, Driver> = {
  duckdb: createDriver({ type: 'duckdb', database: process.env.BENCH_DUCK_FILE!, options: {} }, env),
  postgres: createDriver({ ...pg, type: 'postgres' } as ConnectionSettings & { type: 'postgres' }, env),
};

/** The plainest JSON form of a value (JSON.stringify cannot take a bigint). */
function plain(v: Value): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Instant) return new Date(Number(v.epochMicros / 1000n)).toISOString();
  if (v !== null && typeof v === 'object' && 'text' in v) return v.text;
  return v;
}

async function rowsOf(driver: Driver, text: string, values: unknown[], signal: AbortSignal): Promise<string> {
  const cursor = await driver.run({ text, values, readOnly: true, timeoutMs: 30_000, signal, batchSize: 2000 });
  try {
    const names = cursor.columns.map((c) => c.name);
    const out: Record<string, unknown>[] = [];
    for await (const batch of cursor.batches) {
      for (const row of batch) {
        const object: Record<string, unknown> = {};
        for (let i = 0; i < names.length; i++) object[names[i]] = plain(row[i]);
        out.push(object);
      }
    }
    return JSON.stringify(out);
  } finally {
    await cursor.close();
  }
}

const app = new Hono();
app.post('/small/:db', async (c) => {
  const { id } = await c.req.json<{ id: number }>();
  const json = await rowsOf(drivers[c.req.param('db')], 'select * from items where id = $1', [id], c.req.raw.signal);
  return c.body(json, 200, { 'content-type': 'application/json' });
});
app.post('/page/:db', async (c) => {
  const { sql } = await c.req.json<{ sql: string }>();
  const json = await rowsOf(drivers[c.req.param('db')], sql, [], c.req.raw.signal);
  return c.body(json, 200, { 'content-type': 'application/json' });
});

serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  console.log(JSON.stringify({ port: info.port, message: 'bare server listening' }));
});
process.on('SIGTERM', async () => {
  await Promise.all(Object.values(drivers).map((d) => d.close()));
  process.exit(0);
});
