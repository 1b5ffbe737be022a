import { readFile, rm } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type Webhook, startWebhook } from './webhook-server.ts';
import { eventually } from '../harness/eventually.ts';
import { unique } from '../harness/unique.ts';

/**
 * Audit delivery from one origin to a JSONL file and to a real HTTP webhook
 * that fails at first and then recovers: every entry arrives, in seq order,
 * and `GET /api/v1/audit/delivery` reports progress and the failure.
 */

const URL_TOKEN = `tok${randomBytes(8).toString('hex')}`;

let origin: Origin;
let webhook: Webhook;
let dir: string;
let file: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-audit-out-'));
  file = join(dir, 'out', 'audit.jsonl');
  webhook = await startWebhook();
  webhook.failNext(3);
  // Credentials in the URL must never show: in status, errors or logs.
  const url = webhook.url.replace('http://', `http://hook-user:${URL_TOKEN}@`) + `?token=${URL_TOKEN}`;
  origin = await startOrigin({ env: { SLUICE_AUDIT_FILE: file, SLUICE_AUDIT_WEBHOOK_URL: url } });
});

afterAll(async () => {
  await origin?.stop();
  await webhook?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const status = async () => (await origin.call('GET', '/api/v1/audit/delivery')).body;
const output = async (name: string) => (await status()).outputs.find((o: any) => o.output === name);

async function entries(): Promise<any[]> {
  const page = (await origin.call('GET', '/api/v1/audit?limit=1000')).body;
  return [...page.items].reverse();
}

describe('audit delivery', () => {
  it('reports the failing webhook while it fails', async () => {
    for (let i = 0; i < 5; i++) expect((await origin.call('POST', '/api/v1/connections', { name: unique('delivered'), db: 'duckdb' })).status).toBe(201);
    const failing = await eventually(async () => {
      const hook = await output('webhook');
      return hook?.last_error ? hook : undefined;
    }, { what: 'a recorded webhook failure', timeoutMs: 60_000 });
    expect(failing).toMatchObject({ configured: true, last_error: 'webhook answered HTTP 503', target: `${new URL(webhook.url).origin}/…` });
    expect(failing.behind).toBeGreaterThan(0);
    expect(failing.delivered_seq).toBe(0);
  });

  it('delivers everything once the webhook recovers, in seq order, and clears the error', async () => {
    const all = await entries();
    const last = all[all.length - 1].seq;
    const recovered = await eventually(async () => {
      const hook = await output('webhook');
      return hook?.delivered_seq === last ? hook : undefined;
    }, { what: 'the webhook to catch up', timeoutMs: 60_000 });
    expect(recovered).toMatchObject({ behind: 0, last_error: null, skipped: 0 });
    expect(recovered.instance).toMatch(/:\d+$/);
    expect(recovered.last_delivered_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(webhook.failures).toBe(3);
    expect(webhook.authorization).toBe(`Basic ${Buffer.from(`hook-user:${URL_TOKEN}`).toString('base64')}`);
    expect(webhook.entries.map((e) => e.seq)).toEqual(all.map((e) => e.seq));
    expect(webhook.entries).toEqual(all);
  });

  it('appends the same entries to the JSONL file, one per line, chained', async () => {
    const all = await entries();
    const last = all[all.length - 1].seq;
    await eventually(async () => ((await output('file'))?.delivered_seq === last ? true : undefined), { what: 'the file to catch up', timeoutMs: 60_000 });
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(lines).toEqual(all);
    for (let i = 1; i < lines.length; i++) expect(lines[i].prev_hash).toBe(lines[i - 1].hash);
    expect(await output('file')).toMatchObject({ target: file, behind: 0, last_error: null });
  });

  it('keeps delivering later entries', async () => {
    await origin.call('POST', '/api/v1/connections', { name: unique('later'), db: 'duckdb' });
    const all = await entries();
    const last = all[all.length - 1].seq;
    await eventually(async () => ((await output('webhook'))?.delivered_seq === last && (await output('file'))?.delivered_seq === last ? true : undefined), { what: 'both outputs', timeoutMs: 60_000 });
    expect(webhook.entries.map((e) => e.seq)).toEqual(all.map((e) => e.seq));
  });

  it('never shows the credentials of the webhook URL', async () => {
    expect(JSON.stringify(await status())).not.toContain(URL_TOKEN);
    expect(origin.logs.join('\n')).not.toContain(URL_TOKEN);
    expect(origin.logs.join('\n')).toMatch(/audit webhook output failed/);
  });
});
