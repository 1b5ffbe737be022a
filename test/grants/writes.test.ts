import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GrantsEnv, admin, as, makeKey, saveQuery, startGrantsOrigin } from './fixture.ts';
import { unique } from '../harness/unique.ts';

/**
 * What a key may write (spec, Authentication 5 and 6): only through a
 * `connections` grant with `allow_writes`, or a `queries` object entry with
 * `allow_writes: true`; never through `*`, a plain name or a collection;
 * never past SLUICE_ALLOW_WRITES; narrowed by `allowed_write_ops` (403 naming
 * the permitted operations). `allowed_tables` holds reads and writes to the
 * listed tables and fails closed.
 */

const tag = unique('w');
const WRITE = `gw_${tag}`;
const SECRETS = `gs_${tag}`;
const COLLECTION = `wcol_${tag}`;

async function setUp(env: GrantsEnv) {
  await saveQuery(env.origin, WRITE, {
    sql: 'insert into notes (note) values (:note) returning id',
    parameters: { note: 'str' },
    connection_name: env.pg,
    collection: COLLECTION,
  });
  await saveQuery(env.origin, SECRETS, { sql: 'select v from secrets', connection_name: env.pg, cache_ttl: 60 });
}

const canWriteIn = async (env: GrantsEnv, secret: string) => {
  const res = await as(env.origin, secret).get('/catalog');
  expect(res.status).toBe(200);
  return res.body.queries.find((q: { name: string }) => q.name === WRITE)?.can_write;
};

describe('with SLUICE_ALLOW_WRITES=1', () => {
  let env: GrantsEnv;
  beforeAll(async () => {
    env = await startGrantsOrigin({ SLUICE_ALLOW_WRITES: '1' });
    await setUp(env);
  });
  afterAll(async () => {
    await env?.stop();
  });

  it('lets a connections grant with allow_writes write, ad hoc and through saved queries', async () => {
    const { secret } = await makeKey(env.origin, { connections: [env.pg], allow_writes: true });
    const key = as(env.origin, secret);
    const adhoc = await key.sql(env.pg, "insert into notes (note) values ('adhoc') returning note");
    expect(adhoc.status, JSON.stringify(adhoc.body)).toBe(200);
    expect(adhoc.body).toEqual([{ note: 'adhoc' }]);
    const saved = await key.get(`/q/${WRITE}?note=saved`);
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(await canWriteIn(env, secret)).toBe(true);
    expect((await key.get('/catalog')).body.caller.allow_writes).toBe(true);
  });

  it('keeps a connections grant without allow_writes read-only', async () => {
    const { secret } = await makeKey(env.origin, { connections: [env.pg] });
    const key = as(env.origin, secret);
    const adhoc = await key.sql(env.pg, "insert into notes (note) values ('no')");
    expect(adhoc.status).toBe(403);
    expect(adhoc.body.error).toMatch(/^This API key may not write here/);
    expect((await key.get(`/q/${WRITE}?note=no`)).status).toBe(403);
    expect((await key.sql(env.pg, 'select count(*) as n from films')).body).toEqual([{ n: 3 }]);
    expect(await canWriteIn(env, secret)).toBe(false);
  });

  it('lets an object entry with allow_writes write through that query only, never ad hoc', async () => {
    const { secret } = await makeKey(env.origin, { queries: [{ name: WRITE, allow_writes: true }] });
    const key = as(env.origin, secret);
    expect((await key.get(`/q/${WRITE}?note=entry`)).status).toBe(200);
    expect(await canWriteIn(env, secret)).toBe(true);
    expect((await key.sql(env.pg, "insert into notes (note) values ('x')")).status).toBe(403);
  });

  it('never writes through a plain name, *, or a collection, whatever allow_writes says', async () => {
    for (const grants of [{ queries: [WRITE] }, { queries: ['*'] }, { collections: [COLLECTION] }]) {
      const { secret } = await makeKey(env.origin, { ...grants, allow_writes: true });
      const res = await as(env.origin, secret).get(`/q/${WRITE}?note=never`);
      expect(res.status, `${JSON.stringify(grants)}: ${JSON.stringify(res.body)}`).toBe(403);
      expect(await canWriteIn(env, secret)).toBe(false);
    }
  });

  it('narrows writes to allowed_write_ops, case-insensitively, naming the permitted operations', async () => {
    const { secret } = await makeKey(env.origin, { connections: [env.pg], allow_writes: true, allowed_write_ops: ['insert', 'UPDATE'] });
    const key = as(env.origin, secret);
    expect((await key.sql(env.pg, "INSERT INTO notes (note) VALUES ('ops')")).status).toBe(200);
    expect((await key.sql(env.pg, "update notes set note = 'ops2' where note = 'ops'")).status).toBe(200);
    const refused = await key.sql(env.pg, "delete from notes where note = 'ops2'");
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'DELETE is not permitted for this API key; permitted operations: INSERT, UPDATE' });
    const hidden = await key.sql(env.pg, 'with gone as (delete from notes returning *) select count(*) from gone');
    expect(hidden.status).toBe(403);
    expect(hidden.body.error).toMatch(/^DELETE is not permitted/);
    expect((await key.get('/catalog')).body.caller.allowed_write_ops).toEqual(['insert', 'update']);
  });

  it('holds reads and writes to allowed_tables, and fails closed when the tables are unknown', async () => {
    const { secret } = await makeKey(env.origin, { connections: [env.pg], allow_writes: true, allowed_tables: ['films', 'notes'] });
    const key = as(env.origin, secret);
    expect((await key.sql(env.pg, 'select f.title from films f join notes n on n.note = f.title')).status).toBe(200);
    expect((await key.sql(env.pg, "insert into notes (note) select title from films where id = 1")).status).toBe(200);
    const read = await key.sql(env.pg, 'select * from films, secrets');
    expect(read.status).toBe(403);
    expect(read.body.error).toBe('This API key may not use table secrets; allowed_tables: films, notes');
    const write = await key.sql(env.pg, 'insert into notes (note) select v from secrets');
    expect(write.status).toBe(403);
    expect(write.body.error).toContain('table secrets');
    const unknown = await key.sql(env.pg, 'explain select * from films');
    expect(unknown.status).toBe(403);
    expect(unknown.body.error).toMatch(/cannot be determined/);
  });

  it('checks allowed_tables on saved queries before the response cache', async () => {
    const warm = await admin(env.origin, 'GET', `/q/${SECRETS}`);
    expect(warm.status).toBe(200);
    expect(warm.headers.get('x-cache')).toBe('MISS');
    const { secret } = await makeKey(env.origin, { queries: [SECRETS], allowed_tables: ['films'] });
    const res = await as(env.origin, secret).get(`/q/${SECRETS}`);
    expect(res.status).toBe(403);
    expect(res.headers.get('x-cache')).toBeNull();
    expect(res.body.error).toContain('table secrets');
  });
});

describe('with writes off on the server', () => {
  let env: GrantsEnv;
  beforeAll(async () => {
    env = await startGrantsOrigin();
    await setUp(env);
  });
  afterAll(async () => {
    await env?.stop();
  });

  it('never lets a key write, whatever it holds, and says so in the catalog', async () => {
    const { secret } = await makeKey(env.origin, { connections: ['*'], queries: [{ name: WRITE, allow_writes: true }], allow_writes: true });
    const key = as(env.origin, secret);
    const adhoc = await key.sql(env.pg, "insert into notes (note) values ('off')");
    expect(adhoc.status).toBe(403);
    expect(adhoc.body.error).toMatch(/^Writes are disabled on this server/);
    expect((await key.get(`/q/${WRITE}?note=off`)).status).toBe(403);
    const catalog = (await key.get('/catalog')).body;
    expect(catalog.caller.allow_writes).toBe(false);
    expect(catalog.queries.find((q: { name: string }) => q.name === WRITE).can_write).toBe(false);
    expect((await env.db.query("select count(*)::int as n from notes where note = 'off'"))[0]).toEqual({ n: 0 });
  });
});
