import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, freshDatabase } from '../harness/postgres-store.ts';
import { type Origin, testFile } from '../harness/origin.ts';
import { admin, auditEntries, configFile, startConfigOrigin } from './fixture.ts';
import { dumpStore } from './store-dump.ts';
import { unique } from '../harness/unique.ts';

/** SLUICE_CONFIG_FILE: applied once per SHA-256 even by origins starting together on one store; an unapplicable file stops startup. */

let dir: string;
let database: FreshDatabase;
const origins: Origin[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-config-startup-'));
  database = await freshDatabase();
});

afterAll(async () => {
  await Promise.all(origins.map((o) => o.stop()));
  await database?.drop();
  await rm(dir, { recursive: true, force: true });
});

async function applications(): Promise<string[]> {
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    return (await sql<{ sha256: string }[]>`select sha256 from config_applications order by applied_at`).map((r) => r.sha256);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

describe('SLUICE_CONFIG_FILE', () => {
  it('is applied once by two origins starting together on one store, and a changed file once more at the next start', async () => {
    const name = unique('boot');
    const path = join(dir, 'sluice.yaml');
    await writeFile(path, stringify(configFile({ connections: [{ name, db: 'duckdb', database: testFile('boot.duckdb') }], roles: [{ name: `r_${name}`, max_rows: 1 }] })));
    const env = { SLUICE_DATABASE_URL: database.url, SLUICE_CONFIG_FILE: path, SLUICE_EXAMPLES: '0' };
    const [a, b] = await Promise.all([startConfigOrigin({ template: false, env }), startConfigOrigin({ template: false, env })]);
    origins.push(a, b);
    const applied = (await auditEntries(a)).filter((e) => e.action === 'config_applied');
    expect(applied).toHaveLength(1);
    expect(applied[0]).toMatchObject({ actor: 'SLUICE_CONFIG_FILE', changes: { via: 'config', counts: { connections: { create: 1 } } } });
    expect(await applications()).toHaveLength(1);
    expect([...a.logs, ...b.logs].filter((line) => line.includes('already applied'))).toHaveLength(1);
    expect((await admin(b, 'GET', `/api/v1/connections/${name}`)).status).toBe(200);

    // A change through the API stays: the same file is not applied again.
    expect((await admin(a, 'PATCH', `/api/v1/roles/r_${name}`, { max_rows: 9 })).status).toBe(200);
    await b.stop();
    const restarted = await startConfigOrigin({ template: false, env });
    origins.push(restarted);
    expect((await admin(restarted, 'GET', `/api/v1/roles/r_${name}`)).body.max_rows).toBe(9);

    // A new file (new bytes) is applied at the next start, with prune.
    await writeFile(path, stringify(configFile({ connections: [{ name, db: 'duckdb', database: testFile('boot.duckdb') }], roles: [] })));
    await restarted.stop();
    const pruning = await startConfigOrigin({ template: false, env: { ...env, SLUICE_CONFIG_PRUNE: '1' } });
    origins.push(pruning);
    expect((await admin(pruning, 'GET', `/api/v1/roles/r_${name}`)).status).toBe(404);
    expect(await applications()).toHaveLength(2);
  });

  it('stops startup, printing every problem, when the file cannot be applied; nothing is changed', async () => {
    const path = join(dir, 'broken.yaml');
    await writeFile(path, stringify(configFile({ connections: [{ name: 'fine', db: 'duckdb' }, { name: 'lit', db: 'postgres', host: 'h', password: 'plain' }], roles: [{ name: 'r', max_rows: 0 }] })));
    const failed = await startConfigOrigin({ env: { SLUICE_CONFIG_FILE: path } }).then(
      () => null,
      (err: Error) => err.message,
    );
    expect(failed).toContain('exited with 1');
    expect(failed).toContain('cannot be applied; nothing was changed');
    expect(failed).toContain('connections[1].password');
    expect(failed).toContain('roles[0].max_rows');
    const applyProblem = join(dir, 'refused.yaml');
    await writeFile(applyProblem, stringify(configFile({ queries: [{ name: 'needs-conn', sql: 'SELECT 1', connection_name: 'nowhere' }], roles: [{ name: 'r', connections: ['nowhere'] }] })));
    const before = await dumpStore(database.url);
    const refused = await startConfigOrigin({ template: false, env: { SLUICE_DATABASE_URL: database.url, SLUICE_EXAMPLES: '0', SLUICE_CONFIG_FILE: applyProblem } }).then(
      () => null,
      (err: Error) => err.message,
    );
    expect(refused).toContain('queries[0].connection_name');
    expect(refused).toContain('roles[0].connections');
    // Each problem on a line of its own, and the store as it was.
    expect(refused!.split('\n').filter((line) => line.includes('FATAL'))).toHaveLength(3);
    expect(await dumpStore(database.url)).toEqual(before);
  });
});
