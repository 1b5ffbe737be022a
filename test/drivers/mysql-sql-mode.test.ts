import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { MysqlDriver } from '../../origin/drivers/mysql/driver.ts';
import { env, readAll, request } from './helpers.ts';
import { eventually } from '../harness/eventually.ts';

/**
 * A private MariaDB whose server-wide sql_mode has ANSI_QUOTES and
 * NO_BACKSLASH_ESCAPES: the quoting the read guard and mysql2's client-side
 * escaping do not assume. The driver must reset them per session, or a bound
 * value like `x\' OR 1=1 -- ` becomes SQL.
 */
let server: ChildProcess;
let dir: string;
let port: number;

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port: p } = probe.address() as { port: number };
      probe.close(() => resolve(p));
    });
  });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-mariadb-'));
  port = await freePort();
  execFileSync('mariadb-install-db', ['--no-defaults', `--datadir=${dir}/data`, '--auth-root-authentication-method=normal', '--skip-test-db', '--user=root'], { stdio: 'ignore' });
  server = spawn('mariadbd', ['--no-defaults',
    `--datadir=${dir}/data`, `--socket=${dir}/sock`, `--port=${port}`, '--bind-address=127.0.0.1', '--user=root',
    '--skip-grant-tables', '--skip-log-bin', `--pid-file=${dir}/pid`, '--sql-mode=ANSI_QUOTES,NO_BACKSLASH_ESCAPES',
  ], { stdio: 'ignore' });
  await eventually(() => {
    execFileSync('mariadb-admin', ['-uroot', '-h127.0.0.1', `-P${port}`, 'ping'], { stdio: 'ignore' });
    return true;
  }, { what: 'the private MariaDB to start', timeoutMs: 30_000 });
  execFileSync('mariadb', ['-uroot', '-h127.0.0.1', `-P${port}`, '-e', "create database t; create table t.secrets (name varchar(10)); insert into t.secrets values ('a'), ('b')"]);
}, 60_000);

afterAll(() => {
  server?.kill('SIGKILL');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('a bound value stays data even when the server runs NO_BACKSLASH_ESCAPES and ANSI_QUOTES', async () => {
  const driver = new MysqlDriver({ type: 'mysql', host: '127.0.0.1', port, user: 'root', database: 't', options: {} }, env());
  try {
    const injected = "x\\' OR 1=1 -- ";
    const rows = await readAll(await driver.run(request('select name from secrets where name = ?', { values: [injected] })));
    expect(rows).toEqual([]);
    const [[mode]] = await readAll(await driver.run(request('select @@SESSION.sql_mode')));
    expect(String(mode)).not.toMatch(/NO_BACKSLASH_ESCAPES|ANSI_QUOTES/);
  } finally {
    await driver.close();
  }
});
