import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify as toYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOrigin } from '../harness/origin.ts';
import { copiedDataDir, shown, sluice } from './run-cli.ts';

/**
 * The config commands on the store itself (no `--server`): apply, then diff
 * exits 0 and export gives the objects back; an origin started on the
 * store afterwards serves them, with the changes audited as the actor
 * `cli`, `via: config`, and the chain intact.
 */

const tag = randomBytes(3).toString('hex');
const QUERY = `local_q_${tag}`;
const KEY = `cli-config-local-${randomBytes(8).toString('hex')}`;

let dataDir: string;
let file: string;
const onStore = () => ({ env: { SLUICE_DATA_DIR: dataDir } });

beforeAll(async () => {
  dataDir = await copiedDataDir();
  file = join(dataDir, '..', 'sluice.yaml');
  await writeFile(
    file,
    toYaml({
      format: 'sluice-config',
      format_version: 1,
      queries: [{ name: QUERY, sql: 'SELECT title FROM films WHERE id = :id', parameters: { id: 'integer' }, connection_name: 'examples', collection: `local-${tag}` }],
      roles: [{ name: `local_role_${tag}`, collections: [`local-${tag}`] }],
    }),
  );
});

afterAll(async () => {
  if (dataDir) await rm(join(dataDir, '..'), { recursive: true, force: true });
});

describe('config commands on the store itself', () => {
  it('apply, then diff exits 0 and export gives the objects back', async () => {
    const applied = await sluice(['config', 'apply', file], onStore());
    expect(applied.code, shown(applied)).toBe(0);
    expect(applied.stdout).toContain(`queries:\n  + ${QUERY}`);
    expect(applied.stdout).toContain('Applied: 2 created, 0 changed, 0 deleted.');
    const diff = await sluice(['config', 'diff', file, '--quiet'], onStore());
    expect(diff.code, shown(diff)).toBe(0);
    const exported = await sluice(['config', 'export', '--kinds', 'queries,roles', '--quiet'], onStore());
    expect(exported.code, shown(exported)).toBe(0);
    expect(exported.stdout).toContain(`- name: ${QUERY}`);
    expect(exported.stdout).toContain(`- name: local_role_${tag}`);
    expect(exported.stdout).not.toContain('api_keys:');
  });

  it('apply on a fresh data folder makes the store with the examples connection, as an origin first start does, so a file may name it', async () => {
    const fresh = await mkdtemp(join(tmpdir(), 'sluice-cli-fresh-'));
    try {
      const env = { env: { SLUICE_DATA_DIR: join(fresh, 'data') } };
      const applied = await sluice(['config', 'apply', file], env);
      expect(applied.code, shown(applied)).toBe(0);
      expect(applied.stderr).toContain('Loading the examples connection "examples"');
      expect(applied.stdout).toContain(`queries:\n  + ${QUERY}`);
      const diff = await sluice(['config', 'diff', file, '--quiet'], env);
      expect(diff.code, shown(diff)).toBe(0);
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
  });

  it('refuses a ${VAR} reference to a SLUICE_ setting, naming the rule, and changes nothing', async () => {
    const refused = join(dataDir, '..', 'refused.yaml');
    await writeFile(
      refused,
      toYaml({ format: 'sluice-config', format_version: 1, connections: [{ name: `ref_${tag}`, db: 'postgres', host: '127.0.0.1', password: '${SLUICE_API_KEY}' }] }),
    );
    const run = await sluice(['config', 'apply', refused], onStore());
    expect(run.code, shown(run)).not.toBe(0);
    expect(run.stderr).toMatch(/connections\[0\]\.password: .*SLUICE_ setting.* \[secret_ref_refused\]/);
    const diff = await sluice(['config', 'diff', refused], onStore());
    expect(diff.stderr).toContain('[secret_ref_refused]');
  });

  it('leaves what an origin then serves: audited as cli via config, the chain intact', async () => {
    const origin = await startOrigin({ dataDir, edge: false, env: { SLUICE_API_KEY: KEY } });
    try {
      const headers = { 'x-api-key': KEY };
      const rows = await origin.call('GET', `/q/${QUERY}?id=1`, undefined, headers);
      expect(rows.status, JSON.stringify(rows.body)).toBe(200);
      const entries = (await origin.call('GET', '/api/v1/audit?actor=cli', undefined, headers)).body.items;
      expect(entries.map((e: { action: string }) => e.action)).toEqual(['config_applied', 'create_role', 'save_query']);
      for (const entry of entries) expect(entry.changes.via).toBe('config');
      const managed = await origin.call('GET', '/api/v1/config/managed', undefined, headers);
      expect(managed.body.managed.queries).toContain(QUERY);
      const verify = await origin.call('GET', '/api/v1/audit/verify', undefined, headers);
      expect(verify.body, JSON.stringify(verify.body)).toMatchObject({ intact: true });
    } finally {
      await origin.stop();
    }
  });
});
