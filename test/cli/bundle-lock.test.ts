import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Origin } from '../harness/origin.ts';
import { ADMIN_KEY, admin, configFile, sendFile, startConfigOrigin } from '../config/fixture.ts';
import { shown, sluice } from './run-cli.ts';
import { unique } from '../harness/unique.ts';

/**
 * A bundle import on a server locked to its configuration
 * (SLUICE_CONFIG_LOCKED=1): a new version of a query the file manages is
 * refused (409 `config_managed`), and nothing is written; new queries are
 * imported as anywhere.
 */

let origin: Origin;
const s = unique('lock');
const COLLECTION = `locked-${s.replace(/_/g, '-')}`;
const MANAGED = `managed_${s}`;
const withKey = (input: string) => ({ env: { SLUICE_CLI_API_KEY: ADMIN_KEY }, input });
const bundle = (queries: unknown[]) => JSON.stringify({ format: 'sluice-bundle', format_version: 1, collection: COLLECTION, queries });

beforeAll(async () => {
  origin = await startConfigOrigin({ edge: false, env: { SLUICE_CONFIG_LOCKED: '1' } });
  const applied = await sendFile(origin, 'apply', configFile({ queries: [{ name: MANAGED, sql: 'SELECT 1 AS one', connection_name: 'examples', collection: COLLECTION }] }));
  expect(applied.status, JSON.stringify(applied.body)).toBe(200);
});

afterAll(async () => {
  await origin?.stop();
});

describe('collection import on a locked server', () => {
  it('refuses a new version of a managed query, writing nothing', async () => {
    const run = await sluice(['collection', 'import', '-', '--on-conflict', 'new-version', '--server', origin.url], withKey(bundle([{ name: MANAGED, sql: 'SELECT 2 AS two' }])));
    expect(run.code, shown(run)).toBe(1);
    expect(run.stderr).toContain(`queries[0].name: The query "${MANAGED}" is managed by a configuration file and the server is locked to it`);
    expect((await admin(origin, 'GET', `/api/v1/queries/${MANAGED}`)).body.published_version).toBe(1);
  });

  it('imports a new query into the same collection', async () => {
    const name = `fresh_${s}`;
    const run = await sluice(['collection', 'import', '-', '--on-conflict', 'new-version', '--server', origin.url], withKey(bundle([{ name, sql: 'SELECT 3 AS three' }, { name: MANAGED, sql: 'SELECT 1 AS one', connection_name: 'examples' }])));
    expect(run.code, shown(run)).toBe(0);
    expect(run.stdout).toContain(`Created (1): ${name}`);
    expect(run.stdout).toContain(`Unchanged (1): ${MANAGED}`);
  });
});
