import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Origin } from '../harness/origin.ts';
import { admin, auditEntries, auditIntact, configFile, exportRoot, newSecret, sendFile, startConfigOrigin, unique } from './fixture.ts';

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
    connections: [{ name: `c_${suffix}`, db: 'duckdb', database: `cfg_${suffix}.duckdb` }],
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
