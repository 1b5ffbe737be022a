import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, testFile } from '../harness/origin.ts';
import { ADMIN_KEY, admin, auditEntries, auditIntact, exportRoot, startConfigOrigin } from '../config/fixture.ts';
import { shown, sluice } from './run-cli.ts';
import { unique } from '../harness/unique.ts';

/**
 * Configuration as code through the command, as processes: `config export`
 * from a server holding one of every kind, `config apply` to a fresh one,
 * then `config diff` exits 0 and a second apply writes nothing; diff's exit
 * codes (0 same, 2 changes, 1 problems) and its `--json`; a dry run writes
 * nothing; a problem names the file, the path and the field.
 */

const PASSWORD_VARIABLE = 'SLUICE_REF_CLI_CONFIG_PG_PASSWORD';

let source: Origin;
let target: Origin;
let root: string;
let dir: string;
let exported: string;
let keySecret: string;
const s = unique('cli');
const withKey = { env: { SLUICE_CLI_API_KEY: ADMIN_KEY } };
const at = (origin: Origin, ...args: string[]) => [...args, '--server', origin.url];

async function made(origin: Origin, path: string, body: Record<string, unknown>): Promise<any> {
  const res = await admin(origin, 'POST', path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

beforeAll(async () => {
  root = await exportRoot();
  dir = await mkdtemp(join(tmpdir(), 'sluice-cli-config-'));
  const env = { SLUICE_EXPORT_DIRS: root, [PASSWORD_VARIABLE]: 'unused-here' };
  [source, target] = await Promise.all([startConfigOrigin({ edge: false, env }), startConfigOrigin({ edge: false, env })]);
  await made(source, '/api/v1/connections', { name: `duck_${s}`, db: 'duckdb', database: testFile(`${s}.duckdb`) });
  await made(source, '/api/v1/connections', { name: `pg_${s}`, db: 'postgres', host: '127.0.0.1', user: 'postgres', password: `\${${PASSWORD_VARIABLE}}`, database: 'test', active: false });
  await made(source, '/api/v1/destinations', { name: `dest_${s}`, url: root });
  await made(source, '/api/v1/queries', {
    name: `q_${s}`,
    sql: 'SELECT id, title FROM films WHERE id > :after ORDER BY id',
    parameters: { after: { type: 'integer', min: 0 } },
    connection_name: 'examples',
    collection: `col-${s}`,
    publish: true,
  });
  await made(source, '/api/v1/queries', { name: `q_${s}_draft`, sql: 'SELECT 1 AS one', connection_name: 'examples', publish: false });
  await made(source, '/api/v1/roles', { name: `role_${s}`, collections: [`col-${s}`] });
  keySecret = (await made(source, '/api/v1/api-keys', { name: `key_${s}`, role: `role_${s}` })).secret;
  await made(source, '/api/v1/exports', { name: `exp_${s}`, query: `q_${s}`, format: 'csv', destination: `dest_${s}`, params: { after: 0 } });
});

afterAll(async () => {
  await Promise.all([source?.stop(), target?.stop()]);
  for (const folder of [root, dir]) if (folder) await rm(folder, { recursive: true, force: true });
});

describe('the round trip', () => {
  it('config export writes every kind the source holds, as YAML, holding no secret', async () => {
    exported = join(dir, 'sluice.yaml');
    const run = await sluice(at(source, 'config', 'export', '--out', exported), withKey);
    expect(run.code, shown(run)).toBe(0);
    expect(run.stderr).toContain(`Wrote ${exported}.`);
    const text = await readFile(exported, 'utf8');
    const file = parseYaml(text);
    expect(file).toMatchObject({ format: 'sluice-config', format_version: 1 });
    for (const [kind, name] of [['connections', `pg_${s}`], ['destinations', `dest_${s}`], ['queries', `q_${s}`], ['roles', `role_${s}`], ['api_keys', `key_${s}`], ['exports', `exp_${s}`]]) {
      expect(file[kind].map((entry: { name: string }) => entry.name), kind).toContain(name);
    }
    expect(file.connections.find((c: { name: string }) => c.name === `pg_${s}`).password).toBe(`\${${PASSWORD_VARIABLE}}`);
    expect(file.api_keys.find((k: { name: string }) => k.name === `key_${s}`).secret_sha256).toBe(createHash('sha256').update(keySecret).digest('hex'));
    expect(text).not.toContain(keySecret);
  });

  it('config diff against the fresh server exits 2 and shows the plan; --json prints one document', async () => {
    const run = await sluice(at(target, 'config', 'diff', exported), withKey);
    expect(run.code, shown(run)).toBe(2);
    expect(run.stdout).toContain(`connections:\n  + duck_${s}\n  + pg_${s}`);
    expect(run.stdout).toMatch(/^Plan: \d+ to create, 0 to change, 0 to delete\.$/m);
    const json = await sluice(at(target, 'config', 'diff', exported, '--json'), withKey);
    expect(json.code, shown(json)).toBe(2);
    const plan = JSON.parse(json.stdout);
    expect(plan).toMatchObject({ changed: true, applied: false });
    expect(plan.changes.exports.create).toEqual([`exp_${s}`]);
  });

  it('config apply --dry-run writes nothing', async () => {
    const before = (await auditEntries(target)).length;
    const run = await sluice(at(target, 'config', 'apply', exported, '--dry-run'), withKey);
    expect(run.code, shown(run)).toBe(0);
    expect(run.stdout).toMatch(/^Plan: \d+ to create/m);
    expect((await auditEntries(target)).length).toBe(before);
    expect((await admin(target, 'GET', `/api/v1/queries/q_${s}`)).status).toBe(404);
  });

  it('config apply makes everything; then diff exits 0 and a second apply writes nothing', async () => {
    const run = await sluice(at(target, 'config', 'apply', exported), withKey);
    expect(run.code, shown(run)).toBe(0);
    expect(run.stdout).toMatch(/^Applied: \d+ created, 0 changed, 0 deleted\.$/m);
    const applied = (await auditEntries(target)).at(-1)!;
    expect(applied).toMatchObject({ action: 'config_applied', actor: 'admin', changes: { sha256: createHash('sha256').update(await readFile(exported)).digest('hex') } });

    const diff = await sluice(at(target, 'config', 'diff', exported), withKey);
    expect(diff.code, shown(diff)).toBe(0);
    expect(diff.stdout).toBe('No changes: the target already matches the file.\n');

    const before = (await auditEntries(target)).length;
    const again = await sluice(at(target, 'config', 'apply', exported), withKey);
    expect(again.code, shown(again)).toBe(0);
    expect(again.stdout).toBe('No changes: nothing was written.\n');
    expect((await auditEntries(target)).length).toBe(before);
    expect(await auditIntact(target)).toBe(true);

    // The draft came over as a draft.
    expect((await admin(target, 'GET', `/api/v1/queries/q_${s}_draft`)).body.published_version).toBe(null);
    // The key made from the exported hash takes the source's secret.
    const rows = await target.call('GET', `/q/q_${s}?after=1`, undefined, { 'x-api-key': keySecret });
    expect(rows.status, JSON.stringify(rows.body)).toBe(200);
  });

  it('config diff shows a changed field as from -> to, and exits 2', async () => {
    const file = parseYaml(await readFile(exported, 'utf8'));
    file.queries.find((q: { name: string }) => q.name === `q_${s}`).sql = 'SELECT id FROM films WHERE id > :after ORDER BY id';
    const changed = join(dir, 'changed.yaml');
    await writeFile(changed, toYaml(file));
    const run = await sluice(at(target, 'config', 'diff', changed), withKey);
    expect(run.code, shown(run)).toBe(2);
    expect(run.stdout).toContain(`queries:\n  ~ q_${s}\n      sql: "SELECT id, title FROM films WHERE id > :after ORDER BY id" -> "SELECT id FROM films WHERE id > :after ORDER BY id"`);
    expect(run.stdout).toContain('Plan: 0 to create, 1 to change, 0 to delete.');
  });
});

describe('a drift check on the server the file came from', () => {
  it('config diff of an export against its own server exits 0: its objects are only to manage, which is no drift', async () => {
    const run = await sluice(at(source, 'config', 'diff', exported), withKey);
    expect(run.code, shown(run)).toBe(0);
    expect(run.stdout).toMatch(/^Plan: 0 to create, 0 to change, 0 to delete, \d+ to manage\.$/m);
    expect(run.stdout).toContain(`queries:\n  = q_${s} (unchanged; becomes managed)\n  = q_${s}_draft (unchanged; becomes managed)`);
  });
});

describe('problems', () => {
  it('config diff exits 1 naming the file, the path and the field of every problem', async () => {
    const file = join(dir, 'broken.json');
    await writeFile(file, JSON.stringify({
      format: 'sluice-config',
      format_version: 1,
      connections: [{ name: `lit_${s}`, db: 'postgres', host: '127.0.0.1', password: 'a-literal' }],
      queries: [{ name: `two_${s}`, sql: 'SELECT 1; SELECT 2', connection_name: 'examples' }],
    }));
    const run = await sluice(at(target, 'config', 'diff', file), withKey);
    expect(run.code, shown(run)).toBe(1);
    expect(run.stdout).toBe('');
    // The file's own problem and the one the server finds in the rest, at once.
    expect(run.stderr).toContain(`sluice: ${file}: 2 problems; nothing was changed`);
    expect(run.stderr).toContain(`  ${file}: connections[0].password: must be a \${VAR} reference`);
    expect(run.stderr).toContain(`  ${file}: queries[0].sql: must be exactly one statement, the text holds 2`);
    expect(run.stderr).toContain(`Fix ${file} where named above and run the command again.`);
    expect(run.stderr).not.toContain('a-literal');

    const json = await sluice(at(target, 'config', 'apply', file, '--json'), withKey);
    expect(json.code, shown(json)).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ code: 'invalid_config', errors: [{ path: 'connections[0].password' }, { path: 'queries[0].sql' }] });
  });

  it('an apply with a problem in its last object changes nothing', async () => {
    const file = join(dir, 'last-bad.yaml');
    await writeFile(file, toYaml({
      format: 'sluice-config',
      format_version: 1,
      queries: [
        { name: `fine_${s}`, sql: 'SELECT 1 AS one', connection_name: 'examples' },
        { name: `bad_${s}`, sql: 'SELECT 1; SELECT 2', connection_name: 'examples' },
      ],
    }));
    const before = (await auditEntries(target)).length;
    const run = await sluice(at(target, 'config', 'apply', file), withKey);
    expect(run.code, shown(run)).toBe(1);
    expect(run.stderr).toContain(`${file}: queries[1].sql: must be exactly one statement, the text holds 2`);
    expect((await auditEntries(target)).length).toBe(before);
    expect((await admin(target, 'GET', `/api/v1/queries/fine_${s}`)).status).toBe(404);
  });

  it('--kinds names a section that does not exist, before reaching any server', async () => {
    const run = await sluice(['config', 'export', '--kinds', 'queries,widgets', '--server', 'http://127.0.0.1:9'], withKey);
    expect(run.code, shown(run)).toBe(1);
    expect(run.stderr).toContain('--kinds: no section named "widgets"');
  });
});

describe('a key made from config new-key', () => {
  it('is created by apply from its secret_sha256 and answers to the secret', async () => {
    const made = await sluice(['config', 'new-key', '--json']);
    const { secret, secret_sha256: sha256 } = JSON.parse(made.stdout);
    const file = join(dir, 'key.yaml');
    await writeFile(file, toYaml({ format: 'sluice-config', format_version: 1, api_keys: [{ name: `new_${s}`, queries: [`q_${s}`], secret_sha256: sha256 }] }));
    const run = await sluice(at(target, 'config', 'apply', file, '--quiet'), withKey);
    expect(run.code, shown(run)).toBe(0);
    expect(run.stdout).toContain(`api_keys:\n  + new_${s}`);
    const rows = await target.call('GET', `/q/q_${s}?after=1`, undefined, { 'x-api-key': secret });
    expect(rows.status, JSON.stringify(rows.body)).toBe(200);
  });
});
