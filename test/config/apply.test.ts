import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, testFile } from '../harness/origin.ts';
import { ADMIN_KEY, admin, auditEntries, auditIntact, configFile, exportRoot, newSecret, sendFile, startConfigOrigin } from './fixture.ts';
import { unique } from '../harness/unique.ts';

/** Applying a file: every kind made through the API's verbs, audited `via: config` under one `config_applied`, and a second apply writing nothing. */

let origin: Origin;
let root: string;

beforeAll(async () => {
  root = await exportRoot();
  origin = await startConfigOrigin({ env: { SLUICE_EXPORT_DIRS: root } });
});

afterAll(async () => {
  await origin?.stop();
});

function everyKind(suffix: string, secret: string) {
  return configFile({
    connections: [{ name: `c_${suffix}`, db: 'duckdb', database: testFile(`cfg_${suffix}.duckdb`) }],
    destinations: [{ name: `d_${suffix}`, url: root }],
    queries: [
      { name: `q_${suffix}`, sql: 'SELECT id, title FROM films WHERE id > :after ORDER BY id', parameters: { after: 'integer' }, connection_name: 'examples', collection: `col-${suffix}`, tags: ['a'] },
    ],
    roles: [{ name: `r_${suffix}`, collections: [`col-${suffix}`], max_rows: 10 }],
    api_keys: [{ name: `k_${suffix}`, role: `r_${suffix}`, secret_sha256: secret }],
    exports: [{ name: `e_${suffix}`, query: `q_${suffix}`, format: 'csv', destination: `d_${suffix}`, params: { after: 0 } }],
  });
}

describe('config apply', () => {
  it('makes every kind, audits each change via config under one config_applied, and a second apply writes nothing', async () => {
    const suffix = unique('all');
    const { secret, sha256 } = newSecret();
    const file = everyKind(suffix, sha256);
    const before = (await auditEntries(origin)).length;

    const applied = await sendFile(origin, 'apply', file);
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect(applied.body.applied).toBe(true);
    expect(applied.body.changes.connections.create).toEqual([`c_${suffix}`]);
    expect(applied.body.changes.api_keys.create).toEqual([`k_${suffix}`]);
    expect(applied.body.counts.exports.create).toBe(1);

    const entries = (await auditEntries(origin)).slice(before);
    expect(entries.map((e) => e.action)).toEqual(['create_connection', 'create_destination', 'save_query', 'create_role', 'create_key', 'create_export', 'config_applied']);
    for (const entry of entries) expect(entry.changes.via).toBe('config');
    // The file's SHA-256 is of its bytes as sent.
    expect(applied.body.sha256).toBe(createHash('sha256').update(JSON.stringify(file)).digest('hex'));
    expect(entries.at(-1)!.changes.sha256).toBe(applied.body.sha256);
    expect(await auditIntact(origin)).toBe(true);

    // The key works with its secret and holds the role's grants.
    const run = await origin.call('GET', `/q/q_${suffix}?after=1`, undefined, { 'x-api-key': secret });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    const key = await admin(origin, 'GET', `/api/v1/api-keys/k_${suffix}`);
    expect(key.body).toMatchObject({ collections: [`col-${suffix}`], max_rows: 10, created_from_role: `r_${suffix}` });

    const diff = await sendFile(origin, 'diff', file);
    expect(diff.body.changed).toBe(false);
    const again = await sendFile(origin, 'apply', file, { yaml: true });
    expect(again.status).toBe(200);
    expect(again.body.changed).toBe(false);
    expect((await auditEntries(origin)).length).toBe(before + entries.length);

    const managed = await admin(origin, 'GET', '/api/v1/config/managed');
    expect(managed.body.locked).toBe(false);
    expect(managed.body.managed.queries).toContain(`q_${suffix}`);
  });
});

describe('config apply of changes', () => {
  it('gives a query whose definition changed a new published version, and moves one whose collection alone changed', async () => {
    const name = unique('q');
    const base = { name, sql: 'SELECT 1 AS one', connection_name: 'examples' };
    expect((await sendFile(origin, 'apply', configFile({ queries: [base] }))).status).toBe(200);

    const redefined = await sendFile(origin, 'apply', configFile({ queries: [{ ...base, sql: 'SELECT 2 AS two' }] }));
    expect(redefined.body.changes.queries.update).toEqual([
      { name, fields: { sql: { from: 'SELECT 1 AS one', to: 'SELECT 2 AS two' }, published_version: { from: 1, to: 2 } } },
    ]);
    const read = await admin(origin, 'GET', `/api/v1/queries/${name}`);
    expect(read.body).toMatchObject({ published_version: 2, sql: 'SELECT 2 AS two' });

    const before = (await auditEntries(origin)).length;
    const moved = await sendFile(origin, 'apply', configFile({ queries: [{ ...base, sql: 'SELECT 2 AS two', collection: 'moved-here' }] }));
    expect(moved.body.changes.queries.update[0].fields).toEqual({ collection: { from: null, to: 'moved-here' } });
    const entries = (await auditEntries(origin)).slice(before);
    expect(entries.map((e) => e.action)).toEqual(['move_query', 'config_applied']);
    expect((await admin(origin, 'GET', `/api/v1/queries/${name}`)).body.published_version).toBe(2);

    const retuned = await sendFile(origin, 'apply', configFile({ queries: [{ ...base, sql: 'SELECT 2 AS two', collection: 'moved-here', cache_ttl: 60 }] }));
    expect(retuned.body.changes.queries.update[0].fields).toEqual({ cache_ttl: { from: null, to: 60 } });
    expect((await admin(origin, 'GET', `/api/v1/queries/${name}`)).body).toMatchObject({ published_version: 2, cache_ttl: 60 });
  });

  it('rotates a key given a new secret_sha256, the old secret lasting the grace, and refuses a secret another key holds', async () => {
    const name = unique('k');
    const first = newSecret();
    const second = newSecret();
    const entry = { name, connections: ['examples'] };
    expect((await sendFile(origin, 'apply', configFile({ api_keys: [{ ...entry, secret_sha256: first.sha256 }] }))).status).toBe(200);
    const rotated = await sendFile(origin, 'apply', configFile({ api_keys: [{ ...entry, secret_sha256: second.sha256 }] }));
    expect(rotated.body.changes.api_keys.update).toEqual([{ name, fields: { secret_sha256: 'changed' } }]);
    const key = await admin(origin, 'GET', `/api/v1/api-keys/${name}`);
    expect(key.body.previous_expires_at).not.toBeNull();
    for (const secret of [first.secret, second.secret]) {
      const run = await origin.call('POST', '/execute_sql', { sql: 'SELECT 1 AS one', connection_name: 'examples' }, { 'x-api-key': secret });
      expect(run.status).toBe(200);
    }

    const other = unique('k');
    const taken = await sendFile(origin, 'apply', configFile({ api_keys: [{ name: other, secret_sha256: first.sha256 }] }));
    expect(taken.status).toBe(400);
    expect(taken.body.code).toBe('invalid_config');
    expect(taken.body.errors).toEqual([expect.objectContaining({ path: 'api_keys[0].secret_sha256', code: 'key_secret_taken' })]);
    expect((await admin(origin, 'GET', `/api/v1/api-keys/${other}`)).status).toBe(404);
  });

  it('refuses the server key\'s own secret for a key, new or rotated (key_secret_taken)', async () => {
    const serverKeyHash = createHash('sha256').update(ADMIN_KEY).digest('hex');
    const name = unique('k');
    for (const verb of ['diff', 'apply'] as const) {
      const taken = await sendFile(origin, verb, configFile({ api_keys: [{ name, connections: ['examples'], secret_sha256: serverKeyHash }] }));
      expect(taken.status, JSON.stringify(taken.body)).toBe(400);
      expect(taken.body.errors).toEqual([expect.objectContaining({ path: 'api_keys[0].secret_sha256', code: 'key_secret_taken' })]);
    }
    expect((await admin(origin, 'GET', `/api/v1/api-keys/${name}`)).status).toBe(404);
    const made = await sendFile(origin, 'apply', configFile({ api_keys: [{ name, connections: ['examples'], secret_sha256: newSecret().sha256 }] }));
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const rotated = await sendFile(origin, 'apply', configFile({ api_keys: [{ name, connections: ['examples'], secret_sha256: serverKeyHash }] }));
    expect(rotated.body.errors).toEqual([expect.objectContaining({ path: 'api_keys[0].secret_sha256', code: 'key_secret_taken' })]);
  });

  it('keeps a key with a role on the role: a changed role reaches the key at the same apply', async () => {
    const role = unique('r');
    const key = unique('k');
    const { sha256 } = newSecret();
    const file = (maxRows: number) => configFile({ roles: [{ name: role, connections: ['examples'], max_rows: maxRows }], api_keys: [{ name: key, role, secret_sha256: sha256 }] });
    expect((await sendFile(origin, 'apply', file(5))).status).toBe(200);
    const changed = await sendFile(origin, 'apply', file(7));
    expect(changed.body.changes.roles.update).toEqual([{ name: role, fields: { max_rows: { from: 5, to: 7 } } }]);
    expect(changed.body.changes.api_keys.update).toEqual([{ name: key, fields: { max_rows: { from: 5, to: 7 } } }]);
    expect((await admin(origin, 'GET', `/api/v1/api-keys/${key}`)).body.max_rows).toBe(7);
  });

  it('applies a YAML body, and a dry run or a diff changes nothing', async () => {
    const name = unique('c');
    const file = configFile({ connections: [{ name, db: 'duckdb', database: testFile(`${name}.duckdb`), password: '${SLUICE_REF_CFG_TEST_UNSET}' }] });
    const dry = await sendFile(origin, 'apply', file, { yaml: true, dryRun: true });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body).toMatchObject({ applied: false, changed: true, changes: { connections: { create: [name] } } });
    expect(dry.body.warnings).toEqual([{ path: 'connections[0].password', message: expect.stringContaining('SLUICE_REF_CFG_TEST_UNSET') }]);
    const diff = await sendFile(origin, 'diff', file, { yaml: true });
    expect(diff.body.changes.connections.create).toEqual([name]);
    expect((await admin(origin, 'GET', `/api/v1/connections/${name}`)).status).toBe(404);

    const applied = await sendFile(origin, 'apply', file, { yaml: true });
    expect(applied.body.applied).toBe(true);
    expect((await admin(origin, 'GET', `/api/v1/connections/${name}`)).body.password).toBe('${SLUICE_REF_CFG_TEST_UNSET}');
  });

  it('refuses a literal password, unknown fields, repeated names and descriptions not keyed by connection, by their place in the file', async () => {
    const res = await sendFile(
      origin,
      'apply',
      configFile({
        connections: [
          { name: 'fine', db: 'duckdb' },
          { name: 'lit', db: 'postgres', host: 'h', password: 'hunter22' },
          { name: 'mlit', db: 'mongodb', options: { uri: 'mongodb://reader:hunter23@h:27017/shop' } },
          { name: 'mref', db: 'mongodb', options: { uri: 'mongodb://reader:${SLUICE_REF_CFG_MONGO_PW}@h:27017/shop' } },
        ],
        roles: [{ name: 'r1', colour: 'red' }, { name: 'r1' }],
        descriptions: { fine: { items: [{ table: 't', description: 'x' }] } },
      }),
    );
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_config');
    expect(res.body.errors).toEqual([
      { path: 'connections[1].password', message: expect.stringContaining('${VAR} reference') },
      { path: 'connections[2].options.uri', message: expect.stringContaining('${VAR} reference') },
      { path: 'roles[0].colour', message: 'unknown field', code: 'unknown_field' },
    ]);
    const repeated = await sendFile(origin, 'apply', configFile({ roles: [{ name: 'r1' }, { name: 'r1' }] }));
    expect(repeated.body.errors.map((e: { path: string }) => e.path)).toEqual(['roles[1].name']);
    const listed = await sendFile(origin, 'apply', configFile({ descriptions: [{ connection: 'fine', table: 't', description: 'x' }] }));
    expect(listed.body.errors.map((e: { path: string }) => e.path)).toEqual(['descriptions']);
    const item = await sendFile(origin, 'apply', configFile({ descriptions: { fine: { items: [{ table: 't', text: 'x', description: 'x' }] } } }));
    expect(item.body.errors).toEqual([{ path: 'descriptions.fine.items[0].text', message: 'unknown field', code: 'unknown_field' }]);
    expect(JSON.stringify(res.body)).not.toContain('hunter22');
    expect(JSON.stringify(res.body)).not.toContain('hunter23');
  });

  it('lists every problem at once: those of the file itself (a literal password, a bad type) and what the store says of the rest (an unknown connection), nothing changed', async () => {
    const good = unique('c');
    const file = configFile({
      connections: [
        { name: unique('lit'), db: 'postgres', host: 'h', password: 'hunter24' },
        { name: good, db: 'duckdb', database: testFile(`${good}.duckdb`) },
      ],
      queries: [
        { name: unique('q'), connection_name: unique('nowhere'), sql: 'select 1 as one' },
        { name: unique('q'), connection_name: good, sql: 'select 1 as one', cache_ttl: 'soon' },
      ],
    });
    for (const verb of ['diff', 'apply'] as const) {
      const res = await sendFile(origin, verb, file);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.errors).toEqual([
        { path: 'connections[0].password', message: expect.stringContaining('${VAR} reference') },
        { path: 'queries[1].cache_ttl', message: expect.any(String) },
        { path: 'queries[0].connection_name', message: expect.stringContaining('no connection named') },
      ]);
      expect(JSON.stringify(res.body)).not.toContain('hunter24');
    }
    expect((await admin(origin, 'GET', `/api/v1/connections/${good}`)).status).toBe(404);
  });

  it('says nothing of a reference to an entry left out for its own problem', async () => {
    const broken = unique('broken');
    const res = await sendFile(
      origin,
      'diff',
      configFile({ connections: [{ name: broken, db: 'postgres', host: 'h', password: 'hunter25' }], queries: [{ name: unique('q'), connection_name: broken, sql: 'select 1 as one' }] }),
    );
    expect(res.body.errors).toEqual([{ path: 'connections[0].password', message: expect.stringContaining('${VAR} reference') }]);
  });

  it('applies a workspace-scoped call to that workspace, and refuses a file for another', async () => {
    const ws = unique('ws');
    expect((await admin(origin, 'POST', '/api/v1/workspaces', { name: ws })).status).toBe(201);
    const name = unique('c');
    const file = configFile({ connections: [{ name, db: 'duckdb', database: testFile(`${name}.duckdb`) }] });
    const scoped = await sendFile(origin, 'apply', file, { base: `/w/${ws}` });
    expect(scoped.status, JSON.stringify(scoped.body)).toBe(200);
    expect(scoped.body.workspace).toBe(ws);
    expect((await admin(origin, 'GET', `/w/${ws}/api/v1/connections/${name}`)).status).toBe(200);
    const elsewhere = await sendFile(origin, 'apply', { ...file, workspace: 'default' }, { base: `/w/${ws}` });
    expect(elsewhere.body.errors).toEqual([{ path: 'workspace', message: expect.stringContaining(ws) }]);
    const taken = await sendFile(origin, 'apply', file);
    expect(taken.body.errors).toEqual([{ path: 'connections[0]', message: expect.stringContaining('outside workspace "default"') }]);
  });
});

describe('caches after an apply', () => {
  it('serve the applied definition and connection on the very next run', async () => {
    const [conn, name] = [unique('c'), unique('q')];
    const file = (sql: string, active: boolean) =>
      configFile({ connections: [{ name: conn, db: 'duckdb', database: ':memory:', active }], queries: [{ name, sql, connection_name: conn }] });
    const run = () => origin.call('GET', `/q/${name}`, undefined, { 'x-api-key': ADMIN_KEY });
    expect((await sendFile(origin, 'apply', file('SELECT 1 AS n', true))).status).toBe(200);
    expect((await run()).body).toEqual([{ n: 1 }]);
    expect((await sendFile(origin, 'apply', file('SELECT 2 AS n', true))).status).toBe(200);
    expect((await run()).body).toEqual([{ n: 2 }]);
    expect((await sendFile(origin, 'apply', file('SELECT 2 AS n', false))).status).toBe(200);
    expect((await run()).status).toBe(403);
  });
});

describe('config endpoints', () => {
  it('let only owners apply and export; any administrator may diff and list what is managed', async () => {
    const name = unique('dev');
    expect((await admin(origin, 'POST', '/api/v1/administrators', { name, role: 'admin' })).status).toBe(201);
    const token = (await admin(origin, 'POST', `/api/v1/administrators/${name}/tokens`, { label: 'cfg' })).body.secret;
    const as = { authorization: `Bearer ${token}` };
    const file = configFile({ roles: [{ name: unique('r') }] });
    const post = (verb: string) => origin.fetch(`/api/v1/config/${verb}`, { method: 'POST', headers: { ...as, 'content-type': 'application/json' }, body: JSON.stringify(file) });
    const applied = await post('apply');
    expect(applied.status).toBe(403);
    expect((await applied.json()).capability).toBe('config.apply');
    expect((await post('diff')).status).toBe(200);
    expect((await origin.call('GET', '/api/v1/config/managed', undefined, as)).status).toBe(200);
    expect((await origin.call('GET', '/api/v1/config/export', undefined, as)).status).toBe(403);
  });
});

describe('managed objects', () => {
  it('stop being managed when deleted through the API, so a namesake made later is never pruned', async () => {
    // A workspace of its own: prune acts on every managed role of the workspace.
    const ws = unique('ws');
    expect((await admin(origin, 'POST', '/api/v1/workspaces', { name: ws })).status).toBe(201);
    const at = `/w/${ws}`;
    const [kept, name] = [unique('kept'), unique('role')];
    expect((await sendFile(origin, 'apply', configFile({ roles: [{ name: kept }, { name }] }), { base: at })).status).toBe(200);
    expect((await admin(origin, 'GET', `${at}/api/v1/config/managed`)).body.managed.roles).toEqual([kept, name].sort());
    expect((await admin(origin, 'DELETE', `${at}/api/v1/roles/${name}`)).status).toBe(200);
    expect((await admin(origin, 'GET', `${at}/api/v1/config/managed`)).body.managed.roles).toEqual([kept]);
    expect((await admin(origin, 'POST', `${at}/api/v1/roles`, { name })).status).toBe(201);
    const pruned = await sendFile(origin, 'apply', configFile({ roles: [{ name: kept }] }), { prune: true, base: at });
    expect(pruned.body.changes.roles.delete).toEqual([]);
    expect((await admin(origin, 'GET', `${at}/api/v1/roles/${name}`)).status).toBe(200);
  });
});
