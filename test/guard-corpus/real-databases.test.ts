import { existsSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStatementKeyword } from '../../origin/sql/guard.ts';
import { inspect } from '../../origin/sql/index.ts';
import { PG, tempDir } from '../api/connections-fixtures.ts';
import { ADMIN_KEY, admin, as, makeKey, saveQuery } from '../grants/fixture.ts';
import { startClickhouse, type ClickhouseServer } from '../harness/clickhouse.ts';
import { startOrigin, type Origin } from '../harness/origin.ts';
import { PROBE_SEED, createTestDb, type TestDb } from '../query/fixture.ts';
import { CORPUS_ENGINES, corpus, type CorpusCase, type CorpusEngine } from './index.ts';
import { unique } from '../harness/unique.ts';

/**
 * The published guard corpus through a real origin against the real
 * databases: writes on server-wide, a key granted every connection and no
 * writes. Each refused case answers 403 (400 for several statements or a
 * word no statement starts with), each read 200 with rows (or the
 * database's own refusal, where the corpus leaves it to the database).
 */

const WRITE_PATH = '/tmp/sluice-guard-corpus-h2-write';

let origin: Origin;
let ch: ClickhouseServer;
let folder: Awaited<ReturnType<typeof tempDir>>;
let secret: string;
const dbs: TestDb[] = [];
const conn = {} as Record<CorpusEngine, string>;
/** PostgreSQL through its JDBC driver: the guard reads it as PostgreSQL (origin/sql/engine.ts). */
let jdbcPostgres: string;

async function addConnection(fields: Record<string, unknown>): Promise<string> {
  const name = unique('corpus');
  const res = await admin(origin, 'POST', '/api/v1/connections', { name, ...fields });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return name;
}

beforeAll(async () => {
  for (const suffix of ['', '.csv', '.sql']) rmSync(`${WRITE_PATH}${suffix}`, { force: true });
  folder = await tempDir();
  const sqlEngines = ['postgres', 'mysql', 'duckdb', 'sqlite'] as const;
  const made = await Promise.all(sqlEngines.map((engine) => createTestDb(engine, folder.dir)));
  dbs.push(...made);
  await Promise.all(made.map((db) => db.exec(...PROBE_SEED)));
  ch = await startClickhouse();
  const chDatabase = unique('corpus_ch');
  await ch.exec('default', `CREATE DATABASE ${chDatabase}`, `CREATE TABLE ${chDatabase}.sluice_probe (id Int32, name String) ENGINE = MergeTree ORDER BY id`, `INSERT INTO ${chDatabase}.sluice_probe VALUES (1, 'a'), (2, 'b'), (3, 'c')`);
  origin = await startOrigin({ env: { TZ: 'Europe/Paris', SLUICE_API_KEY: ADMIN_KEY, SLUICE_ALLOW_WRITES: '1' } });
  for (const [i, engine] of sqlEngines.entries()) conn[engine] = await addConnection(made[i].fields);
  const schema = (made[0].fields.options as { search_path: string }).search_path;
  jdbcPostgres = await addConnection({
    db: 'jdbc',
    user: PG.user,
    options: { jdbc_url: `jdbc:postgresql://${PG.host}:${PG.port}/${PG.database}?currentSchema=${schema}`, driver_class: 'org.postgresql.Driver', driver_jar: '/usr/share/java/postgresql.jar' },
  });
  conn.clickhouse = await addConnection({ db: 'clickhouse', host: ch.host, port: ch.port, database: chDatabase });
  conn.h2 = await addConnection({ db: 'h2', options: { jdbc_url: `jdbc:h2:mem:${unique('corpus_h2')};DB_CLOSE_DELAY=-1;DATABASE_TO_LOWER=TRUE;USER=sa` } });
  // The server key may write: it seeds H2, which lives in the origin's helper process.
  for (const sql of [...PROBE_SEED, 'CREATE SEQUENCE sluice_seq']) {
    const res = await admin(origin, 'POST', '/execute_sql', { sql, connection_name: conn.h2 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  secret = (await makeKey(origin, { connections: [...Object.values(conn), jdbcPostgres] })).secret;
}, 240_000);

afterAll(async () => {
  await origin?.stop();
  await ch?.stop();
  await Promise.all(dbs.map((db) => db.drop()));
  await folder?.remove();
});

/** 400 when the text is no single statement, or starts with a word no statement does; 403 for every other refusal. */
function refusedStatus(c: CorpusCase, engine: CorpusEngine): number {
  const info = inspect(c.sql, engine);
  if (info.statementCount !== 1) return 400;
  return info.keyword !== '' && !isStatementKeyword(info.keyword) ? 400 : 403;
}

describe.each(CORPUS_ENGINES)('%s: the guard corpus through the origin, with a key that may not write', (engine) => {
  const cases = corpus(engine);
  const run = (sql: string) => as(origin, secret).sql(conn[engine], sql);

  it.each(cases.filter((c) => c.verdict === 'refused'))('refused: $sql', async (c) => {
    const res = await run(c.sql);
    const status = refusedStatus(c, engine);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    if (status === 403) expect(res.body.error).toMatch(/may not write|refused/i);
  });

  it.each(cases.filter((c) => c.verdict === 'read'))('read: $sql', async (c) => {
    const res = await run(c.sql);
    if (c.runs === false) {
      expect(res.status, JSON.stringify(res.body)).toBe(500);
    } else {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(Array.isArray(res.body) || res.body?.message === 'No results returned', JSON.stringify(res.body)).toBe(true);
    }
  });
});

describe('PostgreSQL through JDBC: the PostgreSQL corpus, read as PostgreSQL reads it', () => {
  const cases = corpus('postgres');
  const run = (sql: string) => as(origin, secret).sql(jdbcPostgres, sql);

  it.each(cases.filter((c) => c.verdict === 'refused'))('refused: $sql', async (c) => {
    const res = await run(c.sql);
    expect(res.status, JSON.stringify(res.body)).toBe(refusedStatus(c, 'postgres'));
  });

  it.each(cases.filter((c) => c.verdict === 'read'))('read: $sql', async (c) => {
    const res = await run(c.sql);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });
});

describe('a saved query on H2 reached as jdbc', () => {
  // The guard's first check of a saved query read the engine from the connection's type: a jdbc
  // connection to H2 was checked as an unknown engine, so an answer a writer cached was served to a
  // caller the H2 rules refuse.
  it("never serves a caller who may not write what a writer's run cached", async () => {
    const h2Jdbc = await addConnection({
      db: 'jdbc',
      options: { jdbc_url: `jdbc:h2:mem:${unique('corpus_h2j')};DB_CLOSE_DELAY=-1;USER=sa`, driver_class: 'org.h2.Driver', driver_jar: '/usr/share/java/h2.jar' },
    });
    const name = unique('corpus_session');
    await saveQuery(origin, name, { sql: 'SELECT SESSION_ID() AS s', connection_name: h2Jdbc, cache_ttl: 300 });
    const written = await admin(origin, 'GET', `/q/${name}`);
    expect(written.status, JSON.stringify(written.body)).toBe(200);
    const reader = (await makeKey(origin, { connections: [h2Jdbc], queries: [name] })).secret;
    const res = await as(origin, reader).get(`/q/${name}`);
    expect(res.status, JSON.stringify(res.body)).toBe(403);
    expect(res.body.error).toContain('SESSION_ID()');
  });
});

describe('what the refusals left alone', () => {
  it('H2 wrote no file, and the probe tables still hold their rows', async () => {
    for (const suffix of ['', '.csv', '.sql']) expect(existsSync(`${WRITE_PATH}${suffix}`)).toBe(false);
    for (const engine of CORPUS_ENGINES) {
      const res = await as(origin, secret).sql(conn[engine], 'SELECT count(*) AS n FROM sluice_probe');
      expect(res.status, `${engine}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(Number(res.body[0].n), engine).toBe(3);
    }
  });
});
