import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type FreshDatabase, freshDatabase } from '../harness/postgres-store.ts';
import { unique } from '../harness/unique.ts';

/**
 * A version saved before patterns ran on RE2 may hold one RE2 refuses (a
 * lookahead). Such a version fails closed: `/q` runs nothing and says which
 * parameter and why; the management API still shows it as saved. The store is
 * PostgreSQL so the test can write that old row itself.
 */

let database: FreshDatabase;
let dir: string;
let origin: Origin;

beforeAll(async () => {
  database = await freshDatabase();
  dir = await mkdtemp(join(tmpdir(), 'sluice-stored-patterns-'));
  origin = await startOrigin({ template: false, dataDir: dir, env: { SLUICE_DATABASE_URL: database.url, SLUICE_EXAMPLES: '0' } });
  const res = await origin.call('POST', '/api/v1/connections', { name: 'mem', db: 'duckdb' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
});

afterAll(async () => {
  await origin?.stop();
  await database?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('a saved pattern RE2 refuses makes /q answer 500 naming the parameter and the reason, running nothing', async () => {
  const name = unique('oldpattern');
  const created = await origin.call('POST', '/api/v1/queries', {
    name,
    sql: 'SELECT :code AS code',
    connection_name: 'mem',
    publish: true,
    parameters: { code: { type: 'string', pattern: '\\w+' } },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const old = { code: { type: 'string', pattern: '(?=.*\\d)\\w+' } };
  const store = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    await store`update query_versions set parameters = ${store.json(old)} where query_id = (select id from queries where name = ${name})`;
  } finally {
    await store.end({ timeout: 5 });
  }

  const run = await origin.fetch(`/q/${name}?code=a1`);
  expect(run.status).toBe(500);
  expect(await run.json()).toEqual({
    error:
      'The saved parameter definitions of version 1 are invalid (code: pattern is not accepted: lookahead ((?=…), (?!…)) is not supported (patterns use RE2 syntax)); save a new version',
  });
  const shown = await origin.call('GET', `/api/v1/queries/${name}`);
  expect(shown.status).toBe(200);
  expect(shown.body.versions[0].parameters).toEqual(old);
});
