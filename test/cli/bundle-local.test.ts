import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOrigin } from '../harness/origin.ts';
import { copiedDataDir, shown, sluice } from './run-cli.ts';

/**
 * The same commands without `--server`: on the store itself, opened as an
 * origin would open it. A dry run writes nothing; an import's saves are
 * the actor `cli`'s, with `source: import`, and the audit chain an origin
 * then verifies is intact.
 */

const tag = randomBytes(3).toString('hex');
const COLLECTION = `local-${tag}`;
const NAME = `local films ${tag}`;
const KEY = `cli-local-key-${randomBytes(8).toString('hex')}`;

let dataDir: string;
let file: string;
const onStore = () => ({ env: { SLUICE_DATA_DIR: dataDir } });

beforeAll(async () => {
  dataDir = await copiedDataDir();
  file = join(dataDir, '..', 'local.json');
  const bundle = {
    format: 'sluice-bundle',
    format_version: 1,
    collection: COLLECTION,
    queries: [{ name: NAME, sql: 'select title from films where id = :id', parameters: { id: 'int' }, connection_name: 'examples', tags: ['local'] }],
  };
  await writeFile(file, JSON.stringify(bundle));
});

afterAll(async () => {
  if (dataDir) await rm(join(dataDir, '..'), { recursive: true, force: true });
});

describe('on the store itself', () => {
  it('a dry run checks and writes nothing', async () => {
    const dry = await sluice(['collection', 'import', file, '--dry-run'], onStore());
    expect(dry.code, shown(dry)).toBe(0);
    expect(dry.stdout).toContain(`Dry run: nothing was written; 1 query would be saved in collection "${COLLECTION}".`);
    expect(dry.stderr).toContain(`Opening the store in ${dataDir}`);
    const after = await sluice(['collection', 'export', COLLECTION], onStore());
    expect(after.code, shown(after)).toBe(1);
    expect(after.stderr).toContain(`Collection "${COLLECTION}" not found`);
  });

  it('imports, then exports what it imported', async () => {
    const run = await sluice(['collection', 'import', file], onStore());
    expect(run.code, shown(run)).toBe(0);
    expect(run.stdout).toContain(`Created (1): ${NAME}`);
    const exported = await sluice(['collection', 'export', COLLECTION, '--quiet'], onStore());
    expect(exported.code, shown(exported)).toBe(0);
    expect(JSON.parse(exported.stdout).queries).toEqual([
      { name: NAME, sql: 'select title from films where id = :id', description: null, tags: ['local'], parameters: { id: 'int' }, connection_name: 'examples', cache_ttl: null },
    ]);
  });

  it('leaves what an origin then serves and audits: actor cli, source import, the chain intact', async () => {
    const origin = await startOrigin({ dataDir, edge: false, env: { SLUICE_API_KEY: KEY } });
    try {
      const headers = { 'x-api-key': KEY };
      const rows = await origin.call('GET', `/q/${encodeURIComponent(NAME)}?id=1`, undefined, headers);
      expect(rows.status, JSON.stringify(rows.body)).toBe(200);
      const audit = await origin.call('GET', `/api/v1/audit?action=save_query&target=${encodeURIComponent(NAME)}`, undefined, headers);
      expect(audit.body.items).toHaveLength(1);
      expect(audit.body.items[0]).toMatchObject({ actor: 'cli', changes: { source: 'import', collection: COLLECTION, published: true } });
      const verify = await origin.call('GET', '/api/v1/audit/verify', undefined, headers);
      expect(verify.body, JSON.stringify(verify.body)).toMatchObject({ intact: true });
    } finally {
      await origin.stop();
    }
  });
});
