import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../formats/fixture.ts';
import { logsCaughtUp, type Origin, testFile } from '../harness/origin.ts';
import { startQueryOrigin } from '../query/fixture.ts';
import { readAll, startStream } from '../streaming/fixture.ts';
import { eventually } from '../harness/eventually.ts';
import { unique } from '../harness/unique.ts';

/**
 * The h2 type through the whole origin: H2 ignores JDBC's read-only flag, so
 * Sluice's guard is what refuses writes; a connection whose database cannot
 * be opened is still saved; its password is masked in responses, errors and
 * logs; a client that aborts a stream ends the helper process.
 */

const SECRET = 'H2-url-S3cret';
let origin: Origin;
let conn: string;

/** The origin's java children: the JDBC helpers. */
function helpers(): number {
  try {
    return execFileSync('pgrep', ['-P', String(origin.process.pid), 'java'], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
}

beforeAll(async () => {
  origin = await startQueryOrigin();
  conn = unique('h2');
  const url = `jdbc:h2:mem:${conn};DB_CLOSE_DELAY=-1;DATABASE_TO_LOWER=TRUE;LAZY_QUERY_EXECUTION=TRUE`;
  const res = await origin.call('POST', '/api/v1/connections', { name: conn, db: 'h2', user: 'sa', password: SECRET, options: { jdbc_url: url } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}, 60_000);

afterAll(async () => {
  await origin?.stop();
});

describe('h2 through the origin', () => {
  it('reads run and come back exact', async () => {
    const res = await post(origin, { sql: 'SELECT CAST(9007199254740993 AS BIGINT) AS big, CAST(1.50 AS DECIMAL(10, 2)) AS d', connection_name: conn }, { format: 'csv' });
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe('big,d\r\n9007199254740993,1.50\r\n');
  });

  it("the guard refuses writes and H2's file functions, which H2 itself would run", async () => {
    for (const sql of ['CREATE TABLE made (a int)', 'INSERT INTO made VALUES (1)', "SELECT FILE_READ('/etc/hostname')", "CALL CSVWRITE('/tmp/x.csv', 'SELECT 1')"]) {
      const res = await post(origin, { sql, connection_name: conn }, { format: 'json' });
      expect(res.status, `${sql}: ${res.text}`).toBe(403);
    }
  });

  it('the password is masked in responses; one inside jdbc_url is refused (test/api/connections-jdbc-url.test.ts)', async () => {
    const res = await origin.call('GET', `/api/v1/connections/${conn}`);
    expect(res.status).toBe(200);
    expect(res.body.password).toBe('********');
    expect(JSON.stringify(res.body)).not.toContain(SECRET);
  });

  it('a connection whose database cannot be opened is saved; its test answers 502, the password masked', async () => {
    const name = unique('h2_missing');
    const url = `jdbc:h2:file:${testFile(`nonexistent-${name}`)}/db;IFEXISTS=TRUE`;
    const created = await origin.call('POST', '/api/v1/connections', { name, db: 'h2', user: 'sa', password: SECRET, options: { jdbc_url: url } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const tested = await origin.call('POST', '/api/v1/connections/test', { name });
    expect(tested.status, JSON.stringify(tested.body)).toBe(502);
    expect(tested.body.error).toBeDefined();
    expect(JSON.stringify(tested.body)).not.toContain(SECRET);
    const ran = await post(origin, { sql: 'SELECT 1', connection_name: name }, { format: 'json' });
    expect(ran.text).not.toContain(SECRET);
    await logsCaughtUp(origin);
    expect(origin.logs.join('\n')).not.toContain(SECRET);
  });

  it('a jdbc connection needs its driver class and jar', async () => {
    const res = await origin.call('POST', '/api/v1/connections', { name: unique('j'), db: 'jdbc', options: { jdbc_url: 'jdbc:h2:mem:x' } });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('driver_class');
  });

  it('a client that aborts a stream ends the helper process; the next read starts a new one', async () => {
    const tag = unique('abort');
    const { res, controller } = await startStream(origin, { sql: `SELECT "X" AS n, '${tag}' AS tag FROM SYSTEM_RANGE(1, 100000000)`, connection_name: conn }, { format: 'csv' });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    await reader.read();
    // One helper per connection: this one's, and the one the unreachable connection's test started.
    const running = helpers();
    expect(running).toBeGreaterThanOrEqual(1);
    controller.abort();
    await readAll(res).catch(() => {});
    await eventually(async () => helpers() === running - 1, { timeoutMs: 10_000 });
    const next = await post(origin, { sql: 'SELECT 7 AS x', connection_name: conn }, { format: 'csv' });
    expect(next.text).toBe('x\r\n7\r\n');
  });
});
