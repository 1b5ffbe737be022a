import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Observed, expectNoSecrets, startObserved } from './fixture.ts';
import { EventStream, runsOf } from './sse.ts';
import { eventually } from '../harness/eventually.ts';
import { unique } from '../harness/unique.ts';

/**
 * GET /events: every run as Server-Sent Events (`event: run`, the run id as
 * the event id, the history item as data), resumable with Last-Event-ID, and
 * filtered to what the caller may see.
 */

let o: Observed;
let granted: string;
let hidden: string;
/** A scoped key reaching `granted` only, and one with a connections grant (ad-hoc SQL). */
let reader: { name: string; secret: string };
let adhoc: { name: string; secret: string };
const streams: EventStream[] = [];

async function key(fields: Record<string, unknown>) {
  const res = await o.api('POST', '/api/v1/api-keys', { name: unique('events_key'), ...fields });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { name: res.body.name as string, secret: res.body.secret as string };
}

async function query(name: string) {
  const res = await o.api('POST', '/api/v1/queries', { name, sql: 'select 1 as one', connection_name: o.pg, publish: true });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

async function open(headers: Record<string, string>) {
  const stream = await EventStream.open(o.origin, headers);
  streams.push(stream);
  if (stream.response.status === 200) await stream.connected();
  return stream;
}

/** Runs a saved query with these headers; answers the request id. */
async function runQ(name: string, headers: Record<string, string>) {
  const res = await o.origin.call('GET', `/q/${name}`, undefined, headers);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.headers.get('x-request-id')!;
}

const admin = () => ({ 'X-API-Key': o.adminKey });

beforeAll(async () => {
  o = await startObserved();
  granted = unique('ev_granted');
  hidden = unique('ev_hidden');
  await query(granted);
  await query(hidden);
  reader = await key({ queries: [granted] });
  adhoc = await key({ connections: [o.pg] });
});
afterEach(() => {
  for (const stream of streams.splice(0)) stream.close();
});
afterAll(async () => {
  await o?.stop();
});

describe('the stream', () => {
  it('announces a run as `event: run` with its run id and the history item as data', async () => {
    const stream = await open(admin());
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const run = await o.sql('select 2 as two');
    const [event] = runsOf(await stream.until((events) => runsOf(events).some((r) => r.request_id === run.requestId)));
    expect(stream.comments).toContain('connected');
    expect(stream.retry).toBeGreaterThan(0);
    const stored = (await o.api('GET', '/api/v1/history?limit=1000')).body.items.find((item: any) => item.request_id === run.requestId);
    expect(event).toEqual(stored);
    expect(event).toMatchObject({ query: null, connection: o.pg, status: 'success', rows: 1, key_name: 'admin', transport: 'http' });
  });

  it('with Last-Event-ID, the runs stored after that id come first, in order', async () => {
    const first = await open(admin());
    const before = await o.sql('select 1');
    const [mark] = runsOf(await first.until((events) => runsOf(events).some((r) => r.request_id === before.requestId))).filter(
      (r) => r.request_id === before.requestId,
    );
    first.close();
    const missed = [await o.sql('select 2'), await o.sql('select 3')].map((r) => r.requestId);
    await eventually(async () => {
      const items = (await o.api('GET', '/api/v1/history?limit=1000')).body.items;
      return missed.every((id) => items.some((item: any) => item.request_id === id));
    }, { what: 'the missed runs stored' });
    const resumed = await open({ ...admin(), 'Last-Event-ID': String(mark.id) });
    const runs = runsOf(await resumed.until((events) => runsOf(events).filter((r) => missed.includes(r.request_id)).length === 2));
    expect(runs.map((r) => r.request_id).slice(0, 2)).toEqual(missed);
    expect(runs.every((r) => r.id > mark.id)).toBe(true);
    expect(runs.map((r) => r.id)).toEqual([...runs.map((r) => r.id)].sort((a, b) => a - b));
  });

  it('a missing or malformed Last-Event-ID starts from now', async () => {
    const stream = await open({ ...admin(), 'Last-Event-ID': 'not-a-number' });
    const run = await o.sql('select 5');
    const runs = runsOf(await stream.until((events) => runsOf(events).some((r) => r.request_id === run.requestId)));
    expect(runs.map((r) => r.request_id)).toEqual([run.requestId]);
  });
});

describe('what each caller sees', () => {
  it('a scoped key: runs of the queries it reaches (others anonymised) and its own, nothing else', async () => {
    const stream = await open({ 'X-API-Key': reader.secret });
    expect(stream.response.status).toBe(200);
    const byAdmin = await runQ(granted, admin());
    await runQ(hidden, admin());
    const adhocRun = await o.origin.call('POST', '/execute_sql', { sql: 'select 9', connection_name: o.pg }, { 'X-API-Key': adhoc.secret });
    expect(adhocRun.status).toBe(200);
    await runQ(hidden, { 'X-API-Key': adhoc.secret });
    const own = await runQ(granted, { 'X-API-Key': reader.secret });
    const runs = runsOf(await stream.until((events) => runsOf(events).some((r) => r.request_id === own)));
    // The last run it may see has arrived; every run before it was announced earlier.
    expect(runs.map((r) => r.query)).toEqual([granted, granted]);
    expect(runs[0]).toMatchObject({ query: granted, key_name: null, request_id: null, error: null });
    expect(runs[1]).toMatchObject({ query: granted, key_name: reader.name, request_id: own });
    expect(byAdmin).not.toBe(own);
  });

  it('a key with a connections grant sees its own ad-hoc runs, and the queries on that connection', async () => {
    const stream = await open({ 'X-API-Key': adhoc.secret });
    const mine = await o.origin.call('POST', '/execute_sql', { sql: 'select 10', connection_name: o.pg }, { 'X-API-Key': adhoc.secret });
    const others = await o.origin.call('POST', '/execute_sql', { sql: 'select 11', connection_name: o.pg }, admin());
    await runQ(hidden, admin());
    const runs = runsOf(await stream.until((events) => runsOf(events).some((r) => r.query === hidden)));
    expect(runs.map((r) => r.request_id ?? r.query)).toEqual([mine.headers.get('x-request-id'), hidden]);
    expect(JSON.stringify(runs)).not.toContain(others.headers.get('x-request-id')!);
  });

  it('an administrator with history.read sees every run; one with no role anywhere gets 403', async () => {
    const auditor = unique('ev_auditor');
    expect((await o.api('POST', '/api/v1/administrators', { name: auditor, role: 'auditor' })).status).toBe(201);
    const token = (await o.api('POST', `/api/v1/administrators/${auditor}/tokens`, {})).body.secret;
    const stream = await open({ Authorization: `Bearer ${token}` });
    const run = await runQ(hidden, { 'X-API-Key': adhoc.secret });
    const [seen] = runsOf(await stream.until((events) => runsOf(events).some((r) => r.request_id === run)));
    expect(seen).toMatchObject({ key_name: adhoc.name, query: hidden });

    const nobody = unique('ev_norole');
    expect((await o.api('POST', '/api/v1/administrators', { name: nobody, role: null })).status).toBe(201);
    const none = (await o.api('POST', `/api/v1/administrators/${nobody}/tokens`, {})).body.secret;
    const refused = await o.origin.fetch('/events', { headers: { Authorization: `Bearer ${none}` } });
    expect(refused.status).toBe(403);
  });

  it('no credential: 401, like every non-public route', async () => {
    const res = await o.origin.fetch('/events');
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'Missing or invalid API key' });
  });

  it('no log line carries the admin key, a key secret or the connection password', () => {
    expectNoSecrets(o.origin, [o.adminKey, o.password, reader.secret, adhoc.secret]);
  });
});
