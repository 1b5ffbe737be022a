import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type FreshDatabase, freshDatabase } from '../harness/postgres-store.ts';
import { recordSecret } from '../harness/run-record.ts';
import { unique } from '../harness/unique.ts';
import { expectError } from '../harness/expect-error.ts';

/**
 * Destinations over HTTP on a PostgreSQL store (so a test can see the stored
 * form and add the export row that keeps one in use): field rules, masking,
 * ETags, PATCH semantics, audit entries, workspaces, the local-folder rules
 * and the probe on a real folder. S3 probes: destinations-s3.test.ts.
 */

const API = '/api/v1/destinations';
const at = (name: string) => `${API}/${encodeURIComponent(name)}`;
const ZONED = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/;
const SECRET_KEY = randomBytes(32).toString('hex');

let database: FreshDatabase;
let store: postgres.Sql;
let origin: Origin;
/** SLUICE_EXPORT_DIRS holds `root` (which holds the data directory) and the server's home. */
let root: string;
let exportsDir: string;
let outside: string;

beforeAll(async () => {
  database = await freshDatabase();
  store = postgres(database.url, { max: 1, onnotice: () => {} });
  root = await mkdtemp(join(tmpdir(), 'sluice-dest-'));
  outside = await mkdtemp(join(tmpdir(), 'sluice-dest-outside-'));
  exportsDir = join(root, 'exports');
  await mkdir(exportsDir);
  await symlink(outside, join(exportsDir, 'link-out'));
  await writeFile(join(exportsDir, 'a-file'), 'not a folder\n');
  origin = await startOrigin({
    template: false,
    dataDir: join(root, 'data'),
    env: { SLUICE_DATABASE_URL: database.url, SLUICE_EXAMPLES: '0', SLUICE_SECRET_KEY: SECRET_KEY, SLUICE_EXPORT_DIRS: `${root},${homedir()}` },
  });
});

afterAll(async () => {
  await origin?.stop();
  await store?.end({ timeout: 5 });
  await database?.drop();
  for (const dir of [root, outside]) if (dir) await rm(dir, { recursive: true, force: true });
});

/** A literal secret key, known to the whole-run secret scan. */
function literalSecret(): string {
  const secret = `Dest-${randomBytes(12).toString('hex')}`;
  recordSecret('destination password', secret);
  return secret;
}

const s3Fields = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  url: `s3://sluice-bucket/${name}/out`,
  region: 'eu-west-3',
  user: 'AKIDEXAMPLE',
  password: literalSecret(),
  ...extra,
});

async function create(body: Record<string, unknown>, base = API) {
  const res = await origin.call('POST', base, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res;
}

async function auditOf(target: string): Promise<any[]> {
  const res = await origin.call('GET', `/api/v1/audit?target=${encodeURIComponent(target)}&limit=100`);
  expect(res.status).toBe(200);
  return res.body.items;
}

describe('create', () => {
  it('saves a bucket prefix and answers 201 with the destination, an ETag and a Location, the secret masked', async () => {
    const name = unique('s3');
    const fields = s3Fields(name);
    const res = await create(fields);
    expect(res.headers.get('etag')).toMatch(/^"d\d+\.1"$/);
    expect(res.headers.get('location')).toBe(at(name));
    expect(res.body).toEqual({
      name,
      url: fields.url,
      region: 'eu-west-3',
      endpoint: null,
      user: 'AKIDEXAMPLE',
      password: '********',
      created_by: '-',
      created_at: expect.stringMatching(ZONED),
      updated_at: expect.stringMatching(ZONED),
    });
    expect(JSON.stringify(res.body)).not.toContain(fields.password);
    // At rest: ciphertext under SLUICE_SECRET_KEY, never the secret.
    const [row] = await store`select password, workspace from destinations where name = ${name}`;
    expect(row.password).toMatch(/^enc:v1:[0-9a-f]{8}:/);
    expect(row.workspace).toBe('default');
  });

  it('keeps a ${VAR} secret as written, and takes gs://, r2:// with its endpoint, and an S3-compatible endpoint', async () => {
    const ref = await create({ name: unique('ref'), url: 's3://sluice-bucket', user: 'AKID', password: '${SLUICE_REF_T_DEST_SECRET}' });
    expect(ref.body.password).toBe('${SLUICE_REF_T_DEST_SECRET}');
    expect((await origin.call('GET', at(ref.body.name))).body.password).toBe('${SLUICE_REF_T_DEST_SECRET}');
    const [row] = await store`select password from destinations where name = ${ref.body.name}`;
    expect(row.password).toBe('${SLUICE_REF_T_DEST_SECRET}');

    await create({ name: unique('gcs'), url: 'gs://sluice-bucket/daily/', user: 'GOOGHMAC', password: '${SLUICE_REF_T_DEST_SECRET}' });
    const r2 = await create({ name: unique('r2'), url: 'r2://sluice-bucket/x', endpoint: 'https://0123abcd.r2.cloudflarestorage.com', user: 'id', password: '${SLUICE_REF_T_DEST_SECRET}' });
    expect(r2.body).toMatchObject({ endpoint: 'https://0123abcd.r2.cloudflarestorage.com', region: null });
    const minio = await create({ name: unique('minio'), url: 's3://sluice-bucket/a/b', endpoint: 'http://127.0.0.1:9000', region: 'us-east-1', user: 'minio', password: '${SLUICE_REF_T_DEST_SECRET}' });
    expect(minio.body.endpoint).toBe('http://127.0.0.1:9000');
  });

  it('refuses a taken name with 409 destination_exists, bad names with invalid_name, unknown fields with unknown_field', async () => {
    const name = unique('dup');
    await create(s3Fields(name));
    expectError(await origin.call('POST', API, s3Fields(name)), 409, 'destination_exists');
    for (const bad of ['', 'a/b', 'x'.repeat(101), ' lead', 'trail ', '..', 'quote"d']) {
      expectError(await origin.call('POST', API, s3Fields(bad)), 400, 'invalid_name');
    }
    const typo = await origin.call('POST', API, { ...s3Fields(unique('u')), bukcet: 'x' });
    expectError(typo, 400, 'unknown_field');
    expect(typo.body.error).toContain('bukcet');
  });

  it('refuses bucket destinations without credentials, r2 without its endpoint, bad urls, endpoints and regions', async () => {
    const missing = await origin.call('POST', API, { name: unique('nocred'), url: 's3://sluice-bucket/x' });
    expectError(missing, 400, 'invalid_request');
    expect(Object.keys(missing.body.errors).sort()).toEqual(['password', 'user']);
    const r2 = await origin.call('POST', API, { name: unique('r2'), url: 'r2://sluice-bucket/x', user: 'id', password: 'p-literal-1' });
    expectError(r2, 400, 'invalid_request');
    expect(r2.body.errors.endpoint).toBeTruthy();
    for (const url of ['https://sluice-bucket.s3.amazonaws.com/x', 'azure://c/x', 's3://', 's3://UPPER/x', 's3://ab/x', 's3://sluice-bucket/a/../b', 's3://sluice-bucket/a//b', 's3://sluice-bucket/a\\b', 's3://sluice-bucket/x?y=1', 'relative/folder']) {
      const res = await origin.call('POST', API, s3Fields(unique('badurl'), { url }));
      expectError(res, 400, 'invalid_request');
      expect(res.body.errors.url, url).toBeTruthy();
    }
    expectError(await origin.call('POST', API, s3Fields(unique('ep'), { endpoint: 'ftp://x' })), 400, 'invalid_request');
    expectError(await origin.call('POST', API, s3Fields(unique('ep'), { endpoint: 'http://minio:9000/bucket' })), 400, 'invalid_request');
    expectError(await origin.call('POST', API, s3Fields(unique('rg'), { region: 'eu west' })), 400, 'invalid_request');
    expectError(await origin.call('POST', API, s3Fields(unique('mask'), { password: '********' })), 400, 'invalid_request');
    expectError(await origin.call('POST', API, { name: unique('nourl'), user: 'a', password: 'b' }), 400, 'invalid_request');
  });
});

describe('local folders', () => {
  it('are taken inside SLUICE_EXPORT_DIRS, as a path or a file:// URL, and take no credentials', async () => {
    const plain = await create({ name: unique('local'), url: join(exportsDir, 'daily') });
    expect(plain.body).toMatchObject({ url: join(exportsDir, 'daily'), region: null, endpoint: null, user: null, password: null });
    await create({ name: unique('file'), url: `file://${join(exportsDir, 'as-url')}` });
    await create({ name: unique('inside-home'), url: join(homedir(), 'sluice-never-written') });
    const creds = await origin.call('POST', API, { name: unique('lc'), url: exportsDir, user: 'u', password: 'p-literal-2' });
    expectError(creds, 400, 'invalid_request');
    expect(Object.keys(creds.body.errors).sort()).toEqual(['password', 'user']);
  });

  it('refuses a folder outside them, after .. and symlinks, naming the allowed folders', async () => {
    for (const url of [outside, join(exportsDir, '..', '..', 'elsewhere'), `${exportsDir}/../../elsewhere`, join(exportsDir, 'link-out'), join(exportsDir, 'link-out', 'deeper'), `file://${outside}`]) {
      const res = await origin.call('POST', API, { name: unique('out'), url });
      expectError(res, 400, 'invalid_request');
      expect(res.body.error, url).toContain('SLUICE_EXPORT_DIRS');
      expect(res.body.error, url).toContain(root);
    }
  });

  it("refuses the server's home, a folder holding it, and the data directory, whatever SLUICE_EXPORT_DIRS says", async () => {
    for (const url of [homedir(), `${homedir()}/`, join(root, 'data'), join(root, 'data', 'store'), root]) {
      const res = await origin.call('POST', API, { name: unique('never'), url });
      expectError(res, 400, 'invalid_request');
      expect(res.body.error, url).toMatch(/home folder|data directory/);
    }
  });

  it('test writes a probe into the folder (creating it) and removes it; saved or unsaved', async () => {
    const folder = join(exportsDir, unique('probe'), 'nested');
    const unsaved = await origin.call('POST', `${API}/test`, { url: folder });
    expect(unsaved.status, JSON.stringify(unsaved.body)).toBe(200);
    expect(unsaved.body).toEqual({ ok: true, duration_ms: expect.any(Number) });
    expect(await readdir(folder)).toEqual([]);

    const name = unique('saved');
    await create({ name, url: `file://${folder}` });
    const saved = await origin.call('POST', `${at(name)}/test`);
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(await readdir(folder)).toEqual([]);
    const byName = await origin.call('POST', `${API}/test`, { name });
    expect(byName.status).toBe(200);
  });

  it('test answers 502 connection_failed when the folder cannot be written, 400 for one not allowed', async () => {
    const blocked = await origin.call('POST', `${API}/test`, { url: join(exportsDir, 'a-file', 'sub') });
    expectError(blocked, 502, 'connection_failed');
    expect(blocked.body.detail).toMatch(/ENOTDIR|EEXIST/);
    expectError(await origin.call('POST', `${API}/test`, { url: outside }), 400, 'invalid_request');
    expectError(await origin.call('POST', `${API}/test`, {}), 400, 'invalid_request');
    expectError(await origin.call('POST', `${API}/test`, { url: exportsDir, typo: 1 }), 400, 'unknown_field');
    expectError(await origin.call('POST', `${at(unique('nope'))}/test`), 404, 'destination_not_found');
    expectError(await origin.call('POST', `${API}/test`, { name: unique('nope') }), 404, 'destination_not_found');
    expectError(await origin.call('POST', `${API}/test`, { url: 's3://sluice-bucket/x', user: 'a', password: '********' }), 400, 'invalid_request');
  });

  it('test of a ${VAR} secret whose variable is unset answers 502 naming the variable', async () => {
    const res = await origin.call('POST', `${API}/test`, { url: 's3://sluice-bucket/x', endpoint: 'http://127.0.0.1:9', user: 'a', password: '${SLUICE_REF_T_NOT_SET_ANYWHERE}' });
    expectError(res, 502, 'connection_failed');
    expect(res.body.error).toContain('SLUICE_REF_T_NOT_SET_ANYWHERE');
  });
});

describe('list and read', () => {
  it('lists every destination by name, never a credential', async () => {
    const name = unique('listed');
    const fields = s3Fields(name, { user: unique('AKIDLISTED') });
    await create(fields);
    const res = await origin.fetch(API);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(fields.password);
    expect(text).not.toContain(fields.user);
    expect(text).not.toMatch(/"(user|password)"/);
    const { destinations } = JSON.parse(text);
    expect(destinations.find((d: any) => d.name === name)).toEqual({
      name,
      url: fields.url,
      region: 'eu-west-3',
      endpoint: null,
      created_at: expect.stringMatching(ZONED),
      updated_at: expect.stringMatching(ZONED),
    });
    const names = destinations.map((d: any) => d.name);
    expect(names).toEqual([...names].sort());
  });

  it('reads one with its ETag; an unknown one is 404 destination_not_found', async () => {
    const name = unique('read');
    const created = await create(s3Fields(name));
    const res = await origin.call('GET', at(name));
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe(created.headers.get('etag'));
    expect(res.body).toEqual(created.body);
    expectError(await origin.call('GET', at(unique('nope'))), 404, 'destination_not_found');
  });
});

describe('update', () => {
  it('checks If-Match against the current ETag and bumps the revision', async () => {
    const name = unique('etag');
    const first = (await create(s3Fields(name))).headers.get('etag')!;
    const changed = await origin.call('PATCH', at(name), { region: 'eu-central-1' }, { 'if-match': first });
    expect(changed.status).toBe(200);
    const second = changed.headers.get('etag')!;
    expect(second).toMatch(/\.2"$/);
    expectError(await origin.call('PATCH', at(name), { region: 'us-west-2' }, { 'if-match': first }), 412, 'precondition_failed');
    expect((await origin.call('GET', at(name))).body.region).toBe('eu-central-1');
    expect((await origin.call('PATCH', at(name), { region: 'us-west-2' }, { 'if-match': second })).status).toBe(200);
    expect((await origin.call('PATCH', at(name), { region: 'us-west-1' }, { 'if-match': '*' })).status).toBe(200);
  });

  it('takes any secret sent as a change, the stored one too: a new ETag and an audit entry, never the secret', async () => {
    const secret = literalSecret();
    const name = unique('oracle');
    const created = await create(s3Fields(name, { password: secret }));
    const again = await origin.call('PATCH', at(name), { password: secret });
    expect(again.status).toBe(200);
    expect(again.headers.get('etag')).not.toBe(created.headers.get('etag'));
    const entries = (await auditOf(name)).filter((entry) => entry.action === 'update_destination');
    expect(entries.map((entry) => entry.changes)).toEqual([{ password: 'changed' }]);
    expect(JSON.stringify(entries)).not.toContain(secret);
  });

  it('keeps the secret when it is omitted or sent as the mask; a new one is stored sealed', async () => {
    const name = unique('pw');
    const created = await create(s3Fields(name));
    const [before] = await store`select password from destinations where name = ${name}`;

    const masked = await origin.call('PATCH', at(name), { password: '********' });
    expect(masked.status).toBe(200);
    expect(masked.headers.get('etag')).toBe(created.headers.get('etag'));
    const omitted = await origin.call('PATCH', at(name), { region: null });
    expect(omitted.body).toMatchObject({ region: null, password: '********' });
    const [kept] = await store`select password from destinations where name = ${name}`;
    expect(kept.password).toBe(before.password);

    const secret = literalSecret();
    const literal = await origin.call('PATCH', at(name), { password: secret });
    expect(literal.body.password).toBe('********');
    expect(JSON.stringify(literal.body)).not.toContain(secret);
    const [sealed] = await store`select password from destinations where name = ${name}`;
    expect(sealed.password).toMatch(/^enc:v1:/);
    expect(sealed.password).not.toBe(before.password);

    const reference = await origin.call('PATCH', at(name), { password: '${SLUICE_REF_T_DEST_SECRET}' });
    expect(reference.body.password).toBe('${SLUICE_REF_T_DEST_SECRET}');
    // A bucket needs its secret: null is refused, and nothing changes.
    expectError(await origin.call('PATCH', at(name), { password: null }), 400, 'invalid_request');
    expect((await origin.call('GET', at(name))).body.password).toBe('${SLUICE_REF_T_DEST_SECRET}');
  });

  it('applies the rules to the result: a local folder drops the credentials, one outside is refused', async () => {
    const name = unique('move');
    await create(s3Fields(name));
    expectError(await origin.call('PATCH', at(name), { url: join(exportsDir, 'moved') }), 400, 'invalid_request');
    const moved = await origin.call('PATCH', at(name), { url: join(exportsDir, 'moved'), region: null, user: null, password: null });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body).toMatchObject({ url: join(exportsDir, 'moved'), user: null, password: null });
    expectError(await origin.call('PATCH', at(name), { url: outside }), 400, 'invalid_request');
  });

  it('refuses renames, unknown fields and unknown destinations', async () => {
    const name = unique('misc');
    await create(s3Fields(name));
    expect((await origin.call('PATCH', at(name), { name })).status).toBe(200);
    expectError(await origin.call('PATCH', at(name), { name: unique('other') }), 400, 'invalid_request');
    expectError(await origin.call('PATCH', at(name), { created_at: 'x' }), 400, 'unknown_field');
    expectError(await origin.call('PATCH', at(unique('nope')), { region: 'x' }), 404, 'destination_not_found');
  });
});

describe('delete', () => {
  it('answers what was removed, frees the name, checks If-Match', async () => {
    const name = unique('del');
    const created = await create(s3Fields(name));
    await origin.call('PATCH', at(name), { region: 'ap-south-1' });
    expectError(await origin.call('DELETE', at(name), undefined, { 'if-match': created.headers.get('etag')! }), 412, 'precondition_failed');
    const res = await origin.call('DELETE', at(name));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name, region: 'ap-south-1', password: '********' });
    expectError(await origin.call('GET', at(name)), 404, 'destination_not_found');
    expectError(await origin.call('DELETE', at(name)), 404, 'destination_not_found');
    const again = await create(s3Fields(name));
    expect(again.headers.get('etag')).not.toBe(created.headers.get('etag'));
  });

  it('is refused with 409 destination_in_use while an export delivers to it', async () => {
    const name = unique('used');
    await create(s3Fields(name));
    const exportName = unique('nightly');
    await store`insert into exports (name, query, format, destination, path) values (${exportName}, 'q', 'csv', ${name}, '{name}/{date}/{run}')`;
    const res = await origin.call('DELETE', at(name));
    expectError(res, 409, 'destination_in_use');
    expect(res.body.exports).toEqual([exportName]);
    expect(res.body.error).toContain(exportName);
    expect((await origin.call('GET', at(name))).status).toBe(200);
    await store`delete from exports where name = ${exportName}`;
    expect((await origin.call('DELETE', at(name))).status).toBe(200);
  });
});

describe('audit', () => {
  it('records create, update and delete; the secret is ******** in snapshots and changed in diffs', async () => {
    const name = unique('audited');
    const fields = s3Fields(name);
    await create(fields);
    await origin.call('PATCH', at(name), { password: literalSecret(), region: 'sa-east-1' });
    await origin.call('PATCH', at(name), { region: 'sa-east-1' });
    await origin.call('DELETE', at(name));
    const entries = await auditOf(name);
    expect(entries.map((e) => e.action)).toEqual(['delete_destination', 'update_destination', 'create_destination']);
    const [deleted, updated, created] = entries;
    expect(created.changes).toEqual({ name, url: fields.url, region: 'eu-west-3', endpoint: null, user: 'AKIDEXAMPLE', password: '********' });
    expect(updated.changes).toEqual({ region: { from: 'eu-west-3', to: 'sa-east-1' }, password: 'changed' });
    expect(deleted.changes).toMatchObject({ name, region: 'sa-east-1', password: '********' });
    expect(JSON.stringify(entries)).not.toContain(fields.password);
  });
});

describe('secrets at rest', () => {
  it('a literal destination secret counts in the rekey check; a ${VAR} does not', async () => {
    const before = (await origin.call('POST', '/api/v1/settings/rekey', { check: true })).body.values;
    await create(s3Fields(unique('counted')));
    await create({ name: unique('uncounted'), url: 's3://sluice-bucket', user: 'AKID', password: '${SLUICE_REF_T_DEST_SECRET}' });
    const after = await origin.call('POST', '/api/v1/settings/rekey', { check: true });
    expect(after.status).toBe(200);
    expect(after.body.values).toBe(before + 1);
    expect(after.body.undecryptable).toBe(0);
  });
});

describe('workspaces', () => {
  it('a destination belongs to the acting workspace; a scoped call sees only its own', async () => {
    const ws = unique('ws').toLowerCase();
    expect((await origin.call('POST', '/api/v1/workspaces', { name: ws })).status).toBe(201);
    const mine = unique('mine');
    const theirs = unique('theirs');
    await create(s3Fields(mine), `/w/${ws}${API}`);
    await create(s3Fields(theirs));
    const scoped = await origin.call('GET', `/w/${ws}${API}`);
    expect(scoped.body.destinations.map((d: any) => d.name)).toEqual([mine]);
    expectError(await origin.call('GET', `/w/${ws}${at(theirs)}`), 404, 'destination_not_found');
    expect((await origin.call('GET', at(mine))).status).toBe(200);
    const [row] = await store`select workspace from destinations where name = ${mine}`;
    expect(row.workspace).toBe(ws);
    const refused = await origin.call('DELETE', `/api/v1/workspaces/${ws}`);
    expectError(refused, 409, 'workspace_not_empty');
    expect(refused.body.contents.destinations).toBe(1);
  });
});
