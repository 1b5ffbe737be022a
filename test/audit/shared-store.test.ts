import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type FreshDatabase, freshDatabase } from '../harness/postgres-store.ts';
import { type Webhook, startWebhook } from './webhook-server.ts';
import { eventually } from '../harness/eventually.ts';

/**
 * Two origin processes on one Postgres store, both with the same audit key
 * and webhook: 200 concurrent audited changes leave a gap-free, keyed chain
 * that verifies, and only one origin delivers (each entry arrives once).
 */

const AUDIT_KEY = `shared-audit-key-${randomBytes(16).toString('hex')}`;
const CHANGES = 200;

let database: FreshDatabase;
let dirs: string[] = [];
let origins: Origin[] = [];
let webhook: Webhook;

beforeAll(async () => {
  database = await freshDatabase();
  webhook = await startWebhook();
  dirs = await Promise.all(['a', 'b'].map((name) => mkdtemp(join(tmpdir(), `sluice-audit-shared-${name}-`))));
  const env = { SLUICE_DATABASE_URL: database.url, SLUICE_AUDIT_KEY: AUDIT_KEY, SLUICE_AUDIT_WEBHOOK_URL: webhook.url };
  // One at a time: the first migrates the new store and installs the examples.
  for (const dataDir of dirs) origins.push(await startOrigin({ template: false, dataDir, env }));
}, 180_000);

afterAll(async () => {
  for (const origin of origins) await origin.stop();
  await webhook?.close();
  await database?.drop();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('two origins on one store', () => {
  it(`${CHANGES} concurrent audited changes through both leave a gap-free chain that verifies, keyed`, async () => {
    const [a, b] = origins;
    const results = await Promise.all(
      Array.from({ length: CHANGES }, (_, i) =>
        (i % 2 ? a : b).call('POST', '/api/v1/connections', { name: `shared_${i}_${randomBytes(3).toString('hex')}`, db: 'duckdb' }),
      ),
    );
    expect(results.filter((r) => r.status !== 201).map((r) => r.body)).toEqual([]);

    const raw = postgres(database.url, { max: 1, onnotice: () => {} });
    try {
      const rows = await raw`select seq::int as seq, action, hash from audit_log order by seq`;
      // load_examples, then one entry per change.
      expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: CHANGES + 1 }, (_, i) => i + 1));
      expect(rows.filter((r) => r.action === 'create_connection')).toHaveLength(CHANGES);
      expect(rows.every((r) => r.hash.startsWith('hmac-sha256:'))).toBe(true);
    } finally {
      await raw.end({ timeout: 5 });
    }
    for (const origin of origins) {
      expect((await origin.call('GET', '/api/v1/audit/verify')).body).toEqual({
        intact: true,
        first_seq: 1,
        last_seq: CHANGES + 1,
        keyed: true,
        keyed_from_seq: 1,
        entries: CHANGES + 1,
        anchor_seq: 0,
      });
    }
  });

  it('only one origin delivers: every entry reaches the webhook once, in seq order', async () => {
    const last = CHANGES + 1;
    await eventually(async () => (webhook.entries.length >= last ? true : undefined), { what: 'every entry at the webhook', timeoutMs: 60_000 });
    expect(webhook.entries.map((e) => e.seq)).toEqual(Array.from({ length: last }, (_, i) => i + 1));
    // The deliverer records its progress once the webhook has answered: the status catches up a moment after the entries arrive.
    const webhookOf = (body: any) => body.outputs.find((o: any) => o.output === 'webhook');
    const [hookA, hookB] = await eventually(
      async () => {
        const hooks = await Promise.all(origins.map(async (o) => webhookOf((await o.call('GET', '/api/v1/audit/delivery')).body)));
        return hooks.every((hook) => hook?.delivered_seq === last) ? hooks : undefined;
      },
      { what: 'both origins reporting every entry delivered', timeoutMs: 30_000 },
    );
    expect(hookA).toMatchObject({ configured: true, delivered_seq: last, behind: 0, last_error: null });
    expect(hookA.instance).toMatch(/:\d+$/);
    expect(hookB.instance).toBe(hookA.instance);
  });
});
