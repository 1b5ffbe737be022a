import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, admin, as, makeKey, saveQuery } from '../grants/fixture.ts';
import { logsCaughtUp, type Origin, startOrigin, templateDir } from '../harness/origin.ts';
import { connectMcp } from '../mcp/client.ts';
import { PG, pgExec } from './connections-fixtures.ts';
import { unique } from '../harness/unique.ts';

/**
 * SLUICE_REQUIRE_LEAST_PRIVILEGE=1: a connection whose database user may do
 * more than read (the local `postgres` is a superuser) is refused, 403
 * `connection_over_privileged`, to scoped keys, ad-hoc and saved queries
 * and MCP alike; the server key still runs on it; a least-privileged role (made
 * here, trust auth, SELECT on one table) serves everyone. An origin
 * starting on the same store logs one line for the over-privileged
 * connection and none for the other.
 */

const role = unique('sluice_least');
const table = `${role}_films`;
let dataDir: string;
let origin: Origin;
let superuser: string;
let least: string;
let key: string;
let query: string;
let cached: string;

const pg = (user: string) => ({ db: 'postgres', host: PG.host, port: PG.port, user, database: PG.database });

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sluice-least-'));
  await cp(templateDir(), dataDir, { recursive: true });
  await pgExec(`CREATE ROLE ${role} LOGIN`, `CREATE TABLE ${table} (id int)`, `INSERT INTO ${table} VALUES (1)`, `GRANT SELECT ON ${table} TO ${role}`);
  origin = await startOrigin({ dataDir, env: { SLUICE_API_KEY: ADMIN_KEY, SLUICE_REQUIRE_LEAST_PRIVILEGE: '1' } });
  superuser = unique('su');
  least = unique('least');
  for (const [name, user] of [[superuser, PG.user], [least, role]]) {
    const res = await admin(origin, 'POST', '/api/v1/connections', { name, ...pg(user) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  query = unique('films');
  await saveQuery(origin, query, { sql: `select id from ${table}`, connection_name: superuser });
  cached = unique('cached');
  await saveQuery(origin, cached, { sql: `select id from ${table}`, connection_name: superuser, cache_ttl: 600 });
  key = (await makeKey(origin, { connections: [superuser, least], queries: [query, cached] })).secret;
}, 120_000);

afterAll(async () => {
  await origin?.stop();
  await rm(dataDir, { recursive: true, force: true });
  await pgExec(`DROP TABLE IF EXISTS ${table}`, `DROP ROLE IF EXISTS ${role}`).catch(() => {});
});

describe('SLUICE_REQUIRE_LEAST_PRIVILEGE=1', () => {
  it('refuses a scoped key on the superuser connection, ad-hoc, browsed and saved, naming why and what to do', async () => {
    const adhoc = await as(origin, key).sql(superuser, `select id from ${table}`);
    expect(adhoc.status, JSON.stringify(adhoc.body)).toBe(403);
    expect(adhoc.body.error).toMatch(/SLUICE_REQUIRE_LEAST_PRIVILEGE.*only the server key.*least-privileged user/);
    const browsed = await as(origin, key).get(`/connections/${superuser}/schema`);
    expect(browsed.status, JSON.stringify(browsed.body)).toBe(403);
    expect((await as(origin, key).get(`/connections/${least}/schema`)).status).toBe(200);
    const saved = await as(origin, key).get(`/q/${query}`);
    expect(saved.status, JSON.stringify(saved.body)).toBe(403);
    expect(JSON.stringify(saved.body)).toMatch(/connection_over_privileged|SLUICE_REQUIRE_LEAST_PRIVILEGE/);
  });

  it("refuses the scoped key's MCP execute_sql and list_tables on it too", async () => {
    const client = await connectMcp(`${origin.url}/mcp`, { 'X-API-Key': key });
    try {
      const refused = await client.call('execute_sql', { sql: `select id from ${table}`, connection_name: superuser });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toMatch(/SLUICE_REQUIRE_LEAST_PRIVILEGE/);
      const served = await client.call('execute_sql', { sql: `select id from ${table}`, connection_name: least });
      expect(served.structuredContent).toMatchObject({ rows: [{ id: 1 }] });
      const browsed = await client.call('list_tables', { connection_name: superuser });
      expect(browsed.isError).toBe(true);
      expect(JSON.stringify(browsed.content)).toMatch(/SLUICE_REQUIRE_LEAST_PRIVILEGE/);
    } finally {
      await client.close();
    }
  });

  it("refuses a saved query's cached answer too, once the server key's run filled the cache", async () => {
    expect((await admin(origin, 'GET', `/q/${cached}`)).status).toBe(200);
    const res = await as(origin, key).get(`/q/${cached}`);
    expect(res.status, JSON.stringify(res.body)).toBe(403);
  });

  it('lets the server key run on it', async () => {
    const res = await admin(origin, 'POST', '/execute_sql', { sql: `select id from ${table}`, connection_name: superuser });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual([{ id: 1 }]);
  });

  it('serves the scoped key on the least-privileged connection', async () => {
    const res = await as(origin, key).sql(least, `select id from ${table}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual([{ id: 1 }]);
  });

  it("the connection's own response shows why", async () => {
    const res = await admin(origin, 'GET', '/api/v1/connections/' + superuser);
    expect(res.body.warnings).toEqual([expect.stringMatching(/superuser/)]);
  });
});

describe('startup', () => {
  it('an origin starting on the store logs one line for the over-privileged connection, none for the other', async () => {
    await origin.stop();
    origin = await startOrigin({ dataDir, env: { SLUICE_API_KEY: ADMIN_KEY } });
    const mentions = (name: string) => origin.logs.filter((line) => line.includes(`connection \\"${name}\\"`) || line.includes(`connection "${name}"`));
    await expect.poll(() => mentions(superuser).length, { timeout: 15_000 }).toBe(1);
    await logsCaughtUp(origin);
    expect(mentions(least)).toEqual([]);
    expect(mentions(superuser)[0]).toMatch(/superuser/);
  });
});
