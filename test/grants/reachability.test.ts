import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GrantsEnv, admin, as, catalogNames, makeKey, openApiNames, runnableNames, saveQuery, startGrantsOrigin } from './fixture.ts';
import { unique } from '../harness/unique.ts';

/**
 * Reachability with real scoped keys (spec, Authentication 5): through a
 * `connections` grant of the query's connection, a `queries` grant (names,
 * object entries, `*`), or a `collections` grant (live); `/catalog`,
 * `/openapi.json` and `/q/<name>` agree for every key. Ad-hoc SQL and schema
 * browsing need a `connections` grant.
 */

let env: GrantsEnv;
const tag = unique('r');
const ON_PG = `ga_${tag}`;
const IN_COLLECTION = `gb_${tag}`;
const LOOSE = `gc_${tag}`;
const COLLECTION = `col_${tag}`;
const ALL = [ON_PG, IN_COLLECTION, LOOSE];

beforeAll(async () => {
  env = await startGrantsOrigin();
  await saveQuery(env.origin, ON_PG, { sql: 'select id, title from films order by id', connection_name: env.pg });
  await saveQuery(env.origin, IN_COLLECTION, { sql: 'select 1 as one', connection_name: 'examples', collection: COLLECTION });
  await saveQuery(env.origin, LOOSE, { sql: 'select 2 as two', connection_name: 'examples' });
  // Version 2 of ON_PG is a draft.
  const draft = await admin(env.origin, 'POST', `/api/v1/queries/${ON_PG}/versions`, { sql: 'select 42 as answer', connection_name: env.pg });
  expect(draft.status, JSON.stringify(draft.body)).toBe(201);
});

afterAll(async () => {
  await env?.stop();
});

/** The key's catalog, OpenAPI document and run path all give `expected`. */
async function expectReach(grants: Record<string, unknown>, expected: string[]) {
  const { secret } = await makeKey(env.origin, grants);
  const sorted = [...expected].sort();
  expect(await catalogNames(env.origin, secret, ALL), `catalog for ${JSON.stringify(grants)}`).toEqual(sorted);
  expect(await openApiNames(env.origin, secret, ALL), `openapi for ${JSON.stringify(grants)}`).toEqual(sorted);
  expect(await runnableNames(env.origin, secret, ALL), `runs for ${JSON.stringify(grants)}`).toEqual(sorted);
  return secret;
}

describe('reaching saved queries', () => {
  it('through a connections grant of the connection the published version runs on', async () => {
    await expectReach({ connections: [env.pg] }, [ON_PG]);
    await expectReach({ connections: ['examples'] }, [IN_COLLECTION, LOOSE]);
    await expectReach({ connections: ['*'] }, ALL);
  });

  it('through a queries grant: a plain name, an object entry, or *', async () => {
    await expectReach({ queries: [LOOSE] }, [LOOSE]);
    await expectReach({ queries: [{ name: ON_PG, allow_writes: true }] }, [ON_PG]);
    await expectReach({ queries: ['*'] }, ALL);
  });

  it('through a collections grant, following the queries in the collection now', async () => {
    const secret = await expectReach({ collections: [COLLECTION] }, [IN_COLLECTION]);
    const moved = await admin(env.origin, 'PATCH', `/api/v1/queries/${LOOSE}`, { collection: COLLECTION });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    try {
      expect(await catalogNames(env.origin, secret, ALL)).toEqual([IN_COLLECTION, LOOSE].sort());
      expect(await runnableNames(env.origin, secret, ALL)).toEqual([IN_COLLECTION, LOOSE].sort());
    } finally {
      await admin(env.origin, 'PATCH', `/api/v1/queries/${LOOSE}`, { collection: null });
    }
    expect(await runnableNames(env.origin, secret, ALL)).toEqual([IN_COLLECTION]);
  });

  it('reaches nothing without grants, answering like a query that does not exist', async () => {
    const { secret } = await makeKey(env.origin, {});
    expect(await catalogNames(env.origin, secret, ALL)).toEqual([]);
    const unknown = await as(env.origin, secret).get(`/q/no_such_${tag}`);
    const hidden = await as(env.origin, secret).get(`/q/${ON_PG}`);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error).toBe(unknown.body.error.replace(`no_such_${tag}`, ON_PG));
  });

  it('never runs a draft for a key, answering like a version that never existed', async () => {
    const { secret } = await makeKey(env.origin, { connections: ['*'], queries: ['*'] });
    const key = as(env.origin, secret);
    const previous = await key.get(`/q/${ON_PG}?version=1`);
    expect(previous.status, JSON.stringify(previous.body)).toBe(200);
    const draft = await key.get(`/q/${ON_PG}?version=2`);
    const missing = await key.get(`/q/${ON_PG}?version=99`);
    expect(draft.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(draft.body.error).toBe(missing.body.error.replace('version 99', 'version 2'));
    expect((await admin(env.origin, 'GET', `/q/${ON_PG}?version=2`)).body).toEqual([{ answer: 42 }]);
  });

  it('holds a connections-grant key to granted connections when the request names another', async () => {
    const { secret } = await makeKey(env.origin, { connections: ['examples'] });
    const refused = await as(env.origin, secret).get(`/q/${LOOSE}?connection_name=${env.pg}`);
    expect(refused.status, JSON.stringify(refused.body)).toBe(403);
    expect(refused.body).toEqual({ error: `Connection "${env.pg}" not granted to this API key` });
  });

  it('runs a query reached by name or collection on any connection the request names', async () => {
    const { secret } = await makeKey(env.origin, { queries: [LOOSE] });
    const res = await as(env.origin, secret).get(`/q/${LOOSE}?connection_name=${env.pg}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual([{ two: 2 }]);
  });
});

describe('ad-hoc SQL and schema browsing', () => {
  it('allows them on a connection the key holds a connections grant of', async () => {
    const { secret } = await makeKey(env.origin, { connections: [env.pg] });
    const key = as(env.origin, secret);
    const rows = await key.sql(env.pg, 'select title from films where id = 2');
    expect(rows.status, JSON.stringify(rows.body)).toBe(200);
    expect(rows.body).toEqual([{ title: 'Beta' }]);
    const schema = await key.get(`/connections/${env.pg}/schema`);
    expect(schema.status, JSON.stringify(schema.body)).toBe(200);
    expect(JSON.stringify(schema.body)).toContain('films');
    const ddl = await key.get(`/connections/${env.pg}/table_ddl?table=films`);
    expect(ddl.status, JSON.stringify(ddl.body)).toBe(200);
  });

  it('refuses them on any other connection with 403, whether it exists or not', async () => {
    const { secret } = await makeKey(env.origin, { connections: [env.pg] });
    const key = as(env.origin, secret);
    for (const connection of ['examples', `missing_${tag}`]) {
      const res = await key.sql(connection, 'select 1');
      expect(res.status, JSON.stringify(res.body)).toBe(403);
      expect(res.body).toEqual({ error: `Connection "${connection}" not granted to this API key` });
      expect((await key.get(`/connections/${connection}/schema`)).status).toBe(403);
      expect((await key.get(`/connections/${connection}/table_ddl?table=films`)).status).toBe(403);
    }
  });

  it('never allows them through queries or collections grants', async () => {
    const { secret } = await makeKey(env.origin, { queries: ['*'], collections: [COLLECTION] });
    const key = as(env.origin, secret);
    expect((await key.sql('examples', 'select 1')).status).toBe(403);
    expect((await key.get('/connections/examples/schema')).status).toBe(403);
  });
});

describe('administrators', () => {
  /** A token of a new administrator with `role` (server-wide), used in X-API-Key like a key's secret. */
  async function tokenOf(role: string): Promise<string> {
    const name = unique(`adm_${role}`);
    const created = await admin(env.origin, 'POST', '/api/v1/administrators', { name, role, email: `${name}@example.com` });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const token = await admin(env.origin, 'POST', `/api/v1/administrators/${name}/tokens`, {});
    expect(token.status, JSON.stringify(token.body)).toBe(201);
    return token.body.secret;
  }

  it('reach every query, ad-hoc SQL and drafts when their role runs data and edits queries', async () => {
    const secret = await tokenOf('developer');
    const developer = as(env.origin, secret);
    expect(await runnableNames(env.origin, secret, ALL)).toEqual([...ALL].sort());
    expect((await developer.get(`/q/${ON_PG}?version=2`)).body).toEqual([{ answer: 42 }]);
    expect((await developer.sql('examples', 'select 3 as three')).body).toEqual([{ three: 3 }]);
  });

  it('reach nothing when their role has no data.run, and are told why ad-hoc SQL is refused', async () => {
    const secret = await tokenOf('auditor');
    expect(await runnableNames(env.origin, secret, ALL)).toEqual([]);
    expect(await catalogNames(env.origin, secret, ALL)).toEqual([]);
    const refused = await as(env.origin, secret).sql('examples', 'select 1');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/data\.run/);
    // Browsing needs only connections.read, which every role has.
    expect((await as(env.origin, secret).get('/connections/examples/schema')).status).toBe(200);
  });
});

describe("the catalog's caller", () => {
  it("reports the key's name, write settings narrowed by the server, and rate limits", async () => {
    const { name, secret } = await makeKey(env.origin, { connections: [env.pg], allow_writes: true, allowed_write_ops: ['insert'], rate_limit: '100/minute' });
    const res = await as(env.origin, secret).get('/catalog');
    // This origin has SLUICE_ALLOW_WRITES unset: the key's own setting cannot widen it.
    expect(res.body.caller).toEqual({ name, admin: false, allow_writes: false, allowed_write_ops: ['insert'], rate_limit: '100/minute', server_rate_limit: null, budget: null });
  });
});
