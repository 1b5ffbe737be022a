import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, type Reply, adminWithToken, asAdmin, bearer, expectStatus } from '../access/fixtures.ts';
import { type Origin, logsCaughtUp, startOrigin } from '../harness/origin.ts';
import { type PasswordListener, startPasswordListener } from '../harness/password-listener.ts';
import { recordSecret } from '../harness/run-record.ts';
import { expectError } from '../harness/expect-error.ts';
import { unique } from '../harness/unique.ts';

/**
 * `${VAR}` references (docs/reference/secrets.md#references): only variables
 * the operator allows (SLUICE_SECRET_REFS, by default SLUICE_REF_*; never
 * another SLUICE_ setting) are expanded, and only server-wide owners and the
 * server key may write one. A listener on loopback asks every client for its
 * password in clear text and records it: the attack of issue 33 item 3 was
 * a workspace owner sending `${SLUICE_API_KEY}` to it.
 */

const WAREHOUSE = `warehouse-secret-${process.pid}-9f2e`;
const LEGACY = `legacy-secret-${process.pid}-41ab`;
const WS = unique('refs');
const IN_WS = `/w/${WS}/api/v1`;

let origin: Origin;
let listener: PasswordListener;
let wsOwner: string;
let serverAdmin: string;
let serverOwner: string;

const pgAt = (password: string) => ({ db: 'postgres', host: '127.0.0.1', port: listener.port, user: 'reader', database: 'shop', password });
const bucketAt = (password: string) => ({ url: 's3://refs-bucket/x', endpoint: `http://127.0.0.1:${listener.port}`, user: 'AKID', password });
const configFile = (sections: Record<string, unknown>) => ({ format: 'sluice-config', format_version: 1, ...sections });

function expectRefused(res: Reply, pattern: RegExp): void {
  expectError(res, 400, 'secret_ref_refused');
  expect(res.body.error).toMatch(pattern);
}

beforeAll(async () => {
  recordSecret('allowed reference value', WAREHOUSE);
  recordSecret('legacy reference value', LEGACY);
  listener = await startPasswordListener();
  origin = await startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY, SLUICE_REF_WAREHOUSE_PW: WAREHOUSE, LEGACY_DB_PW: LEGACY } });
  expectStatus(await asAdmin(origin, 'POST', '/api/v1/workspaces', { name: WS }), 201);
  const owner = unique('ws-owner');
  wsOwner = await adminWithToken(origin, owner, null);
  expectStatus(await asAdmin(origin, 'PUT', `/api/v1/workspaces/${WS}/members/${owner}`, { role: 'owner' }), 201);
  serverAdmin = await adminWithToken(origin, unique('server-admin'), 'admin');
  serverOwner = await adminWithToken(origin, unique('server-owner'), 'owner');
});

afterAll(async () => {
  await origin?.stop();
  await listener?.close();
});

describe('who may write a ${VAR} reference', () => {
  it('a workspace owner cannot send the server key (or any reference) to a listener of their own', async () => {
    const call = (method: string, path: string, body: unknown) => origin.call(method, path, body, bearer(wsOwner));
    const attack = await call('POST', `${IN_WS}/connections/test`, pgAt('${SLUICE_API_KEY}'));
    expect(listener.received, 'what the listener was sent').toEqual([]);
    expectRefused(attack, /server-wide owners/);
    expectRefused(await call('POST', `${IN_WS}/connections/test`, pgAt('${SLUICE_REF_WAREHOUSE_PW}')), /server-wide owners/);
    expectRefused(await call('POST', `${IN_WS}/connections/databases`, pgAt('${SLUICE_REF_WAREHOUSE_PW}')), /server-wide owners/);
    expectRefused(await call('POST', `${IN_WS}/destinations/test`, bucketAt('${SLUICE_REF_WAREHOUSE_PW}')), /server-wide owners/);
    expectRefused(await call('POST', `${IN_WS}/connections`, { name: unique('c'), ...pgAt('${SLUICE_REF_WAREHOUSE_PW}') }), /server-wide owners/);
    expectRefused(await call('POST', `${IN_WS}/destinations`, { name: unique('d'), ...bucketAt('${SLUICE_REF_WAREHOUSE_PW}') }), /server-wide owners/);
    expect(listener.received).toEqual([]);
  });

  it('nor point a connection or destination holding one elsewhere; switching it off, or dropping the reference, is theirs to do', async () => {
    const connection = unique('held');
    const destination = unique('held-d');
    expectStatus(await asAdmin(origin, 'POST', `${IN_WS}/connections`, { name: connection, ...pgAt('${SLUICE_REF_WAREHOUSE_PW}'), host: '127.0.0.2' }), 201);
    expectStatus(await asAdmin(origin, 'POST', `${IN_WS}/destinations`, { name: destination, ...bucketAt('${SLUICE_REF_WAREHOUSE_PW}') }), 201);
    const call = (method: string, path: string, body: unknown) => origin.call(method, path, body, bearer(wsOwner));
    expectRefused(await call('PATCH', `${IN_WS}/connections/${connection}`, { host: '127.0.0.1' }), /server-wide owners/);
    expectRefused(await call('PATCH', `${IN_WS}/destinations/${destination}`, { endpoint: 'http://127.0.0.1:1' }), /server-wide owners/);
    expectStatus(await call('PATCH', `${IN_WS}/connections/${connection}`, { active: false }), 200);
    const dropped = await call('PATCH', `${IN_WS}/connections/${connection}`, { host: '127.0.0.1', password: 'their-own' });
    expectStatus(dropped, 200);
    expect(dropped.body.password).toBe('********');
    expect(listener.received).toEqual([]);
  });

  it('a config file is held to the same rule, path and code per entry', async () => {
    const file = configFile({ connections: [{ name: unique('cfg'), ...pgAt('${SLUICE_REF_WAREHOUSE_PW}') }] });
    const res = await origin.call('POST', `${IN_WS}/config/apply`, file, bearer(wsOwner));
    expectError(res, 400, 'invalid_config');
    expect(res.body.errors).toEqual([{ path: 'connections[0].password', message: expect.stringMatching(/server-wide owners/), code: 'secret_ref_refused' }]);
  });

  it('a server-wide admin is refused too; a server-wide owner may', async () => {
    expectRefused(await origin.call('POST', '/api/v1/connections/test', pgAt('${SLUICE_REF_WAREHOUSE_PW}'), bearer(serverAdmin)), /server-wide owners/);
    const made = await origin.call('POST', '/api/v1/connections', { name: unique('owned'), ...pgAt('${SLUICE_REF_WAREHOUSE_PW}') }, bearer(serverOwner));
    expectStatus(made, 201);
    expect(made.body.password).toBe('${SLUICE_REF_WAREHOUSE_PW}');
    // A create asks the database what its user may do (least privilege), so the allowed secret went there.
    expect(listener.received).toEqual([WAREHOUSE]);
    listener.received.length = 0;
  });
});

describe('which variables a reference may name', () => {
  it('never a SLUICE_ setting, nor a name outside SLUICE_SECRET_REFS, even for the server key', async () => {
    const setting = await asAdmin(origin, 'POST', '/api/v1/connections/test', pgAt('${SLUICE_API_KEY}'));
    expectRefused(setting, /\$\{SLUICE_API_KEY\}.*SLUICE_ setting.*SLUICE_REF_/);
    expect(setting.body.errors).toEqual({ password: expect.stringContaining('SLUICE_REF_') });
    expectRefused(await asAdmin(origin, 'POST', '/api/v1/connections/test', pgAt('${sluice_api_key}')), /SLUICE_ setting/);
    expectRefused(await asAdmin(origin, 'POST', '/api/v1/connections/test', pgAt('${LEGACY_DB_PW}')), /LEGACY_DB_PW.*SLUICE_SECRET_REFS/);
    expectRefused(await asAdmin(origin, 'POST', '/api/v1/destinations/test', bucketAt('${SLUICE_API_KEY}')), /SLUICE_ setting/);
    expectRefused(await asAdmin(origin, 'POST', '/api/v1/connections', { name: unique('c'), ...pgAt('${SLUICE_API_KEY}') }), /SLUICE_ setting/);
    const mongo = await asAdmin(origin, 'POST', '/api/v1/connections', { name: unique('m'), db: 'mongodb', options: { uri: 'mongodb://u:${SLUICE_API_KEY}@127.0.0.1:1/db' } });
    expectRefused(mongo, /SLUICE_ setting/);
    expect(Object.keys(mongo.body.errors)).toEqual(['options.uri']);
    expect(listener.received).toEqual([]);
  });

  it('an allowed name reaches the database it is sent to', async () => {
    const res = await asAdmin(origin, 'POST', '/api/v1/connections/test', pgAt('${SLUICE_REF_WAREHOUSE_PW}'));
    expectError(res, 502, 'connection_failed');
    expect(listener.received).toEqual([WAREHOUSE]);
    listener.received.length = 0;
  });

  it('config files: a refused name is a problem of its entry, for the server key too', async () => {
    const file = configFile({
      connections: [{ name: unique('cfg'), ...pgAt('${SLUICE_API_KEY}') }],
      destinations: [{ name: unique('cfgd'), ...bucketAt('${LEGACY_DB_PW}') }],
    });
    for (const verb of ['diff', 'apply']) {
      const res = await asAdmin(origin, 'POST', `/api/v1/config/${verb}`, file);
      expectError(res, 400, 'invalid_config');
      expect(res.body.errors).toEqual([
        { path: 'connections[0].password', message: expect.stringMatching(/SLUICE_ setting/), code: 'secret_ref_refused' },
        { path: 'destinations[0].password', message: expect.stringMatching(/SLUICE_SECRET_REFS/), code: 'secret_ref_refused' },
      ]);
    }
  });
});

describe('stored references the rule now refuses', () => {
  it('are reported at startup and by a test of the connection, and never expanded', async () => {
    const name = unique('legacy');
    const destination = unique('legacy-d');
    const first = await startOrigin({ edge: false, env: { SLUICE_API_KEY: ADMIN_KEY, SLUICE_SECRET_REFS: 'LEGACY_*', LEGACY_DB_PW: LEGACY } });
    const dataDir = first.dataDir;
    try {
      expectStatus(await asAdmin(first, 'POST', '/api/v1/connections', { name, ...pgAt('${LEGACY_DB_PW}') }), 201);
      expectStatus(await asAdmin(first, 'POST', '/api/v1/destinations', { name: destination, ...bucketAt('${LEGACY_DB_PW}') }), 201);
      // Allowed then: the create's privilege check sent it to the database.
      expect(listener.received).toEqual([LEGACY]);
      listener.received.length = 0;
    } finally {
      // Stopped without removing its data dir: the next origin starts on it.
      first.process.kill('SIGTERM');
      await new Promise((resolve) => first.process.once('exit', resolve));
    }
    const second = await startOrigin({ dataDir, edge: false, env: { SLUICE_API_KEY: ADMIN_KEY, LEGACY_DB_PW: LEGACY } });
    try {
      await logsCaughtUp(second);
      const lines = second.logs.filter((line) => line.includes('LEGACY_DB_PW'));
      expect(lines.some((line) => line.includes(`connection "${name}"`)), lines.join('\n')).toBe(true);
      expect(lines.some((line) => line.includes(`destination "${destination}"`)), lines.join('\n')).toBe(true);
      expect(second.logs.join('\n')).not.toContain(LEGACY);
      const tested = await asAdmin(second, 'POST', '/api/v1/connections/test', { name });
      expectError(tested, 502, 'connection_failed');
      expect(tested.body.error).toMatch(/\$\{LEGACY_DB_PW\}.*SLUICE_SECRET_REFS/);
      const run = await asAdmin(second, 'POST', '/execute_sql', { sql: 'select 1', connection_name: name });
      expect(run.status).toBe(502);
      expect(listener.received).toEqual([]);
    } finally {
      await second.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
