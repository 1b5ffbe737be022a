import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretKeyring } from '../../origin/secrets/keyring.ts';
import { parseSecretKeys } from '../../origin/secrets/keys.ts';
import { MY, myExec } from '../api/connections-fixtures.ts';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type FreshDatabase, freshDatabase } from '../harness/postgres-store.ts';
import { eventually } from '../harness/eventually.ts';
import { unique } from '../harness/unique.ts';

/**
 * Passwords at rest on a Postgres store, across restarts with different
 * SLUICE_SECRET_KEY values: ciphertext in the store and never the password,
 * MariaDB logins (which check the password) still working, startup warnings,
 * rekey check and run (all or nothing), the rotation alert, and 500
 * `secret_undecryptable` when no key opens a value.
 */

const USER = unique('sluice_sec');
const PASSWORD = `Pw-${randomBytes(9).toString('hex')}`;
const KEY_A = randomBytes(32).toString('hex');
const KEY_B = randomBytes(32).toString('base64');
const KEY_C = randomBytes(32).toString('hex');
const [ID_A, ID_B, ID_C] = [KEY_A, KEY_B, KEY_C].map((k) => parseSecretKeys(k)[0].id);
const ADMIN = `admin-${randomBytes(8).toString('hex')}`;

let database: FreshDatabase;
let dataDir: string;
let raw: postgres.Sql;
let origin: Origin | undefined;
/** Every line every origin of this file printed. */
const logs: string[] = [];

beforeAll(async () => {
  await myExec(`create user '${USER}'@'%' identified by '${PASSWORD}'`, `grant select on test.* to '${USER}'@'%'`);
  database = await freshDatabase();
  dataDir = await mkdtemp(join(tmpdir(), 'sluice-secrets-'));
  raw = postgres(database.url, { max: 1, onnotice: () => {} });
});

afterAll(async () => {
  await restart(null);
  await raw?.end({ timeout: 5 });
  await database?.drop();
  await myExec(`drop user if exists '${USER}'@'%'`).catch(() => {});
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  // Whatever happened, the password never reached a log line.
  expect(logs.join('\n')).not.toContain(PASSWORD);
});

/** Stops the running origin and starts one with `key` as SLUICE_SECRET_KEY (null: none); null `key` and `start` false only stops. */
async function restart(key: string | null, start = key !== null): Promise<Origin | undefined> {
  if (origin) {
    await origin.stop();
    logs.push(...origin.logs);
    origin = undefined;
  }
  if (!start) return undefined;
  const env: Record<string, string> = { SLUICE_DATABASE_URL: database.url, SLUICE_API_KEY: ADMIN, SLUICE_REF_T_SECRET_PW: PASSWORD };
  if (key) env.SLUICE_SECRET_KEY = key;
  origin = await startOrigin({ template: false, dataDir, env });
  return origin;
}

const call = (method: string, path: string, body?: unknown) => origin!.call(method, path, body, { 'x-api-key': ADMIN });
const mysqlConnection = (name: string, password: string) => ({ name, db: 'mysql', host: MY.host, port: MY.port, user: USER, password, database: MY.database });

async function storedPassword(name: string): Promise<string | null> {
  const [row] = await raw`select password from connections where name = ${name}`;
  return row.password;
}

/** Everything the store holds that could carry a password, as text. */
async function storeText(): Promise<string> {
  const tables = await raw`select table_name from information_schema.tables where table_schema = 'public'`;
  const dumps = await Promise.all(tables.map(({ table_name }) => raw.unsafe(`select * from "${table_name}"`)));
  return JSON.stringify(dumps);
}

async function runs(name: string): Promise<number> {
  return (await call('POST', '/execute_sql', { connection_name: name, sql: 'select 1 as one' })).status;
}

async function alerts() {
  const res = await call('GET', '/api/v1/alerts');
  expect(res.status).toBe(200);
  return res.body.alerts;
}

async function rekey(body?: unknown) {
  return call('POST', '/api/v1/settings/rekey', body);
}

describe('secrets at rest', () => {
  it('without a key: literals are stored as they are, and startup warns about them', async () => {
    await restart(null, true);
    expect((await call('POST', '/api/v1/connections', mysqlConnection('plain', PASSWORD))).status).toBe(201);
    expect(await storedPassword('plain')).toBe(PASSWORD);
    expect(await runs('plain')).toBe(200);
    expect(await alerts()).toEqual([]);
    expect((await rekey()).body.code).toBe('secret_key_missing');
    await restart(null, true);
    expect(origin!.logs.join('\n')).toMatch(/1 stored password\(s\) are plain text \(connection "plain"\): set SLUICE_SECRET_KEY/);
  });

  it('with a key: new literals are encrypted, references are not, connecting still works', async () => {
    await restart(KEY_A);
    expect(origin!.logs.join('\n')).toMatch(/plain text although SLUICE_SECRET_KEY is set \(connection "plain"\)/);
    expect((await call('POST', '/api/v1/connections', mysqlConnection('sealed', PASSWORD))).status).toBe(201);
    expect((await call('POST', '/api/v1/connections', mysqlConnection('referenced', '${SLUICE_REF_T_SECRET_PW}'))).status).toBe(201);
    expect((await call('POST', '/api/v1/connections', mysqlConnection('wrong', 'not-the-password'))).status).toBe(201);
    expect(await storedPassword('sealed')).toMatch(new RegExp(`^enc:v1:${ID_A}:`));
    expect(await storedPassword('referenced')).toBe('${SLUICE_REF_T_SECRET_PW}');
    expect((await call('GET', '/api/v1/connections/sealed')).body.password).toBe('********');
    expect(await runs('sealed')).toBe(200);
    expect(await runs('referenced')).toBe(200);
    // MariaDB checks the password: the decrypted one is what logs in.
    expect(await runs('wrong')).not.toBe(200);
    expect((await call('DELETE', '/api/v1/connections/wrong', { reason: 'control' })).status).toBe(200);
    // A password sent is a change even when it is the same one (else the ETag would confirm a guess): audited, stored encrypted.
    expect((await call('PATCH', '/api/v1/connections/sealed', { password: PASSWORD })).status).toBe(200);
    const updates = (await call('GET', '/api/v1/audit?action=update_connection&target=sealed')).body;
    expect(updates.total).toBe(1);
    expect(await storedPassword('sealed')).toMatch(new RegExp(`^enc:v1:${ID_A}:`));
  });

  it('rekey check reports; the alert fires while a value is not under the first key', async () => {
    const check = await rekey({ check: true });
    expect(check.status).toBe(200);
    expect(check.body).toEqual({ keys: [ID_A], values: 2, by_key: { [ID_A]: 1 }, plaintext: 1, under_old_keys: 0, undecryptable: 0, undecryptable_values: [] });
    const [alert] = await alerts();
    expect(alert).toMatchObject({
      name: 'encryption_key_rotation_incomplete',
      severity: 'warning',
      subject: null,
      details: { first_key: ID_A, plaintext: 1, under_old_keys: 0, undecryptable: 0 },
    });
    expect(await storedPassword('plain')).toBe(PASSWORD);
  });

  it('rekey is for owners: an admin-role administrator gets 403, an owner gets the report', async () => {
    const tokenOf = async (name: string, role: string) => {
      expect((await call('POST', '/api/v1/administrators', { name, role })).status).toBe(201);
      const issued = await call('POST', `/api/v1/administrators/${name}/tokens`, {});
      expect(issued.status, JSON.stringify(issued.body)).toBe(201);
      return { authorization: `Bearer ${issued.body.secret}` };
    };
    const asAdmin = await tokenOf(unique('sec_admin'), 'admin');
    const asOwner = await tokenOf(unique('sec_owner'), 'owner');
    const refused = await origin!.call('POST', '/api/v1/settings/rekey', { check: true }, asAdmin);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'forbidden', capability: 'secrets.rotate' });
    expect((await origin!.call('GET', '/api/v1/alerts', undefined, asAdmin)).status).toBe(200);
    const allowed = await origin!.call('POST', '/api/v1/settings/rekey', { check: true }, asOwner);
    expect(allowed.status).toBe(200);
    expect(allowed.body.plaintext).toBe(1);
  });

  it('rekey encrypts the rest, audits counts only, and the alert is gone', async () => {
    const run = await rekey();
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ keys: [ID_A], values: 2, by_key: { [ID_A]: 2 }, plaintext: 0, under_old_keys: 0, undecryptable: 0, rekeyed: 1 });
    expect(await storedPassword('plain')).toMatch(new RegExp(`^enc:v1:${ID_A}:`));
    expect(await runs('plain')).toBe(200);
    expect(await alerts()).toEqual([]);
    const entries = (await call('GET', '/api/v1/audit?action=rekey')).body.items;
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actor: 'admin', target: 'secrets', changes: { values: 2, rekeyed: 1, from_plaintext: 1, from_old_keys: 0 } });
    // Nothing left to do: nothing written.
    expect((await rekey({})).body.rekeyed).toBe(0);
    expect((await call('GET', '/api/v1/audit?action=rekey')).body.total).toBe(1);
    expect(await storeText()).not.toContain(PASSWORD);
  });

  it('a new first key: older values still open, the alert says what remains, rekey moves them', async () => {
    await restart(`${KEY_B},${KEY_A}`);
    expect(origin!.logs.join('\n')).toMatch(/2 stored password\(s\) are under an older key/);
    expect(await runs('sealed')).toBe(200);
    expect((await rekey({ check: true })).body).toMatchObject({ keys: [ID_B, ID_A], values: 2, by_key: { [ID_A]: 2 }, under_old_keys: 2 });
    expect((await alerts())[0].details).toMatchObject({ first_key: ID_B, under_old_keys: 2, by_key: { [ID_A]: 2 } });
    const run = await rekey();
    expect(run.body).toMatchObject({ by_key: { [ID_B]: 2 }, under_old_keys: 0, rekeyed: 2 });
    expect(await storedPassword('sealed')).toMatch(new RegExp(`^enc:v1:${ID_B}:`));
    expect(await alerts()).toEqual([]);
    expect(await runs('sealed')).toBe(200);
    expect(await runs('plain')).toBe(200);
  });

  it('rekey is all or nothing: one value no key opens blocks it and nothing changes', async () => {
    const underA = new SecretKeyring(parseSecretKeys(KEY_A)).encrypt(PASSWORD);
    const underC = new SecretKeyring(parseSecretKeys(KEY_C)).encrypt(PASSWORD);
    await raw`update connections set password = ${underA} where name = 'sealed'`;
    await raw`update connections set password = ${underC} where name = 'plain'`;
    // Edited behind the verbs' back: tell the origin's connection cache, as a verb would.
    await raw`select pg_notify('sluice_connections', 'plain'), pg_notify('sluice_connections', 'sealed')`;
    const refused = await rekey();
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      code: 'rekey_blocked',
      undecryptable: 1,
      undecryptable_values: [{ kind: 'connection', name: 'plain', key_id: ID_C }],
    });
    expect(await storedPassword('sealed')).toBe(underA);
    expect(await storedPassword('plain')).toBe(underC);
    expect((await call('GET', '/api/v1/audit?action=rekey')).body.total).toBe(2);
    expect((await rekey({ check: true })).body).toMatchObject({ under_old_keys: 1, undecryptable: 1 });
    expect((await alerts())[0].details).toMatchObject({ under_old_keys: 1, undecryptable: 1 });
  });

  it('a value no key opens: 500 secret_undecryptable naming whose and why, never the secret', async () => {
    const probe = await call('POST', '/api/v1/connections/test', { name: 'plain' });
    expect(probe.status).toBe(500);
    expect(probe.body.code).toBe('secret_undecryptable');
    expect(probe.body.error).toBe(
      `The stored password of connection "plain" cannot be decrypted: it was encrypted with key ${ID_C}, which SLUICE_SECRET_KEY does not hold (it holds ${ID_B}, ${ID_A})`,
    );
    const query = await eventually(async () => {
      const res = await call('POST', '/execute_sql', { connection_name: 'plain', sql: 'select 1 as one' });
      return res.status === 200 ? undefined : res;
    }, { what: 'the cache to drop the old password' });
    expect(query.status).toBe(500);
    expect(query.body.error).toMatch(/connection "plain" cannot be decrypted/);
    expect(JSON.stringify([probe.body, query.body])).not.toContain(PASSWORD);
    // Its neighbours are unaffected.
    expect(await runs('sealed')).toBe(200);
  });

  it('the wrong key only: startup warns, and the values it cannot open answer 500', async () => {
    await restart(KEY_B);
    expect(origin!.logs.join('\n')).toMatch(/2 stored password\(s\) cannot be decrypted with the keys of SLUICE_SECRET_KEY \(connection "sealed", connection "plain"\)|2 stored password\(s\) cannot be decrypted with the keys of SLUICE_SECRET_KEY \(connection "plain", connection "sealed"\)/);
    const probe = await call('POST', '/api/v1/connections/test', { name: 'sealed' });
    expect(probe.status).toBe(500);
    expect(probe.body.error).toMatch(new RegExp(`encrypted with key ${ID_A}, which SLUICE_SECRET_KEY does not hold`));
  });

  it('no key at all: startup warns that encrypted values cannot be used', async () => {
    await restart(null, true);
    expect(origin!.logs.join('\n')).toMatch(/are encrypted but SLUICE_SECRET_KEY is not set/);
    expect(await runs('sealed')).toBe(500);
  });

  it('a malformed key stops startup, naming the variable and not echoing it', async () => {
    await restart(null);
    const failure = await startOrigin({ template: false, dataDir, env: { SLUICE_DATABASE_URL: database.url, SLUICE_SECRET_KEY: `${KEY_A},short` } }).catch((err: Error) => err);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/SLUICE_SECRET_KEY: key 2 of 2 must be 32 bytes/);
    expect((failure as Error).message).not.toContain(KEY_A);
  });
});
