import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MY, PG } from '../api/connections-fixtures.ts';
import { type Observed, expectNoSecrets, logLines, startObserved } from './fixture.ts';
import { eventually } from '../harness/eventually.ts';
import { unique } from '../harness/unique.ts';

/**
 * A tour of the paths that handle credentials (wrong keys and tokens,
 * connections with passwords that work and that fail, scoped keys and
 * administrator tokens in use, the metrics token), then a grep of every line
 * the origin printed: none carries any of them.
 */

const hex = (n: number) => randomBytes(n).toString('hex');
const METRICS_TOKEN = `mt_${hex(12)}`;
const SECRET_KEY = hex(32);
let o: Observed;
const secrets: string[] = [];

beforeAll(async () => {
  o = await startObserved({ SLUICE_METRICS_TOKEN: METRICS_TOKEN, SLUICE_SECRET_KEY: SECRET_KEY });
  secrets.push(o.adminKey, o.password, METRICS_TOKEN, SECRET_KEY);
});
afterAll(async () => {
  await o?.stop();
});

describe('credentials never reach a log line', () => {
  it('wrong credentials presented every way', async () => {
    const wrongKey = `slc_${hex(16)}`;
    const wrongToken = `slc_adm_${hex(16)}`;
    secrets.push(wrongKey, wrongToken);
    expect((await o.origin.call('GET', '/catalog', undefined, { 'X-API-Key': wrongKey })).status).toBe(401);
    expect((await o.origin.call('GET', '/api/v1/queries', undefined, { Authorization: `Bearer ${wrongToken}` })).status).toBe(401);
    expect((await o.origin.fetch(`/metrics?token=${wrongKey}`, { headers: { Authorization: `Bearer ${wrongToken}` } })).status).toBe(401);
    expect((await o.origin.fetch('/metrics', { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(200);
  });

  it('connections with passwords: saved, probed, failing to connect, failing to log in', async () => {
    const wrong = `pw_${hex(10)}`;
    const unreachable = `pw_${hex(10)}`;
    secrets.push(wrong, unreachable);
    const mysqlName = unique('obs_my');
    expect((await o.api('POST', '/api/v1/connections', { name: mysqlName, db: 'mysql', host: MY.host, port: MY.port, user: MY.user, database: MY.database, password: wrong })).status).toBe(201);
    const refused = await o.sql('select 1', mysqlName);
    expect(refused.status).toBeGreaterThanOrEqual(500);
    const deadName = unique('obs_dead');
    expect((await o.api('POST', '/api/v1/connections', { name: deadName, db: 'postgres', host: PG.host, port: 1, user: PG.user, database: PG.database, password: unreachable })).status).toBe(201);
    expect((await o.sql('select 1', deadName)).status).toBeGreaterThanOrEqual(500);
    const probe = await o.api('POST', '/api/v1/connections/test', { db: 'postgres', host: PG.host, port: 1, user: PG.user, database: PG.database, password: unreachable });
    // Nothing listens on port 1: the probe fails, naming the failure and never the password.
    expect(probe.status, JSON.stringify(probe.body)).toBe(502);
    expect(probe.body.code).toBe('connection_failed');
    expect(JSON.stringify(probe.body)).not.toContain(unreachable);
    expect((await o.sql('select 1')).status).toBe(200);
    expect((await o.sql('select pg_sleep(0.25)')).status).toBe(200);
    expect((await o.api('GET', `/api/v1/connections/${o.pg}`)).status).toBe(200);
  });

  it('scoped keys and administrator tokens in use', async () => {
    const key = await o.api('POST', '/api/v1/api-keys', { name: unique('obs_key'), connections: [o.pg] });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    secrets.push(key.body.secret);
    const run = await o.origin.call('POST', '/execute_sql', { sql: 'select 1', connection_name: o.pg }, { 'X-API-Key': key.body.secret });
    expect(run.status).toBe(200);
    // The key's own name is on its lines: it is the caller's name, not its secret.
    const id = run.headers.get('x-request-id')!;
    const lines = await eventually(() => {
      const found = logLines(o.origin).filter((line) => line.request_id === id);
      return found.some((line) => line.logger === 'sluice.access') ? found : null;
    }, { what: 'the key request lines' });
    for (const line of lines) expect(line.key).toBe(key.body.name);
    const rotated = await o.api('POST', `/api/v1/api-keys/${key.body.name}/rotate`, {});
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    secrets.push(rotated.body.secret);

    const name = unique('obs_owner');
    expect((await o.api('POST', '/api/v1/administrators', { name, role: 'owner' })).status).toBe(201);
    const token = await o.api('POST', `/api/v1/administrators/${name}/tokens`, {});
    secrets.push(token.body.secret);
    expect((await o.origin.call('GET', '/api/v1/settings', undefined, { Authorization: `Bearer ${token.body.secret}` })).status).toBe(200);
    expect((await o.origin.call('GET', '/api/v1/me', undefined, { 'X-API-Key': token.body.secret })).status).toBe(200);
  });

  it('no line the origin printed carries any of them', async () => {
    // A clean stop writes the last lines too.
    await o.stop();
    expect(secrets.length).toBeGreaterThanOrEqual(10);
    expectNoSecrets(o.origin, secrets);
  });
});
