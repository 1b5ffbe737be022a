import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PostgresDriver } from '../../origin/drivers/postgres/driver.ts';
import { postgresServerBinDir } from '../harness/components.ts';
import { recordSecret } from '../harness/run-record.ts';
import { env, failure, readAll, request } from './helpers.ts';

/**
 * The machine's PostgreSQL trusts every local login, so a wrong password
 * would pass. This file starts a private server (initdb, scram-sha-256) to
 * see what a real authentication failure carries back. The server programs
 * are those of whatever PostgreSQL is installed; without them the file fails,
 * naming what is missing.
 */

const PASSWORD = 'Pw-s3cret-9f2e';
let bin = '';
let dir = '';
let port = 0;

/** initdb refuses to run as root: run the server tools as the postgres user then. */
function asPostgres(command: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]] : [join(bin, command), args];
  execFileSync(file, argv, { stdio: 'ignore' });
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port: p } = server.address() as { port: number };
      server.close(() => resolve(p));
    });
  });
}

beforeAll(async () => {
  bin = postgresServerBinDir();
  dir = mkdtempSync(join(tmpdir(), 'sluice-pgauth-'));
  // Searched for in the whole run's record too (test/harness/secret-scan.ts).
  recordSecret('driver password', PASSWORD);
  recordSecret('driver password', `${PASSWORD}-wrong`);
  port = await freePort();
  writeFileSync(join(dir, 'pw'), PASSWORD);
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
    chownSync(dir, uid, gid);
    chownSync(join(dir, 'pw'), uid, gid);
  }
  asPostgres('initdb', ['-D', join(dir, 'data'), '-A', 'scram-sha-256', '-U', 'postgres', `--pwfile=${join(dir, 'pw')}`, '--no-sync']);
  asPostgres('pg_ctl', ['-D', join(dir, 'data'), '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, '-w', 'start']);
}, 60_000);

afterAll(() => {
  if (!dir) return;
  try {
    asPostgres('pg_ctl', ['-D', join(dir, 'data'), '-m', 'immediate', 'stop']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('postgres authentication', () => {
  const settings = (password: string) => ({
    type: 'postgres' as const,
    host: '127.0.0.1',
    port,
    user: 'postgres',
    password,
    database: 'postgres',
    options: {},
  });

  test('a wrong password fails without echoing it', async () => {
    const wrong = `${PASSWORD}-wrong`;
    const d = new PostgresDriver(settings(wrong), env());
    try {
      const run = await failure(d.run(request('select 1')));
      expect(run.code).toBe('query_failed');
      expect(String(run.extras.detail)).toMatch(/password authentication failed/);
      expect(JSON.stringify(run.extras)).not.toContain(wrong);
      const probe = await failure(d.test());
      expect(probe.code).toBe('connection_failed');
      expect(JSON.stringify(probe.extras)).not.toContain(wrong);
    } finally {
      await d.close();
    }
  });

  test('the password is stripped from database messages that quote it', async () => {
    const d = new PostgresDriver(settings(PASSWORD), env());
    try {
      expect(await readAll(await d.run(request('select 1')))).toEqual([[1]]);
      const error = await failure(d.run(request(`select 'postgres://u:${PASSWORD}@h/db'::int`)));
      expect(error.extras.detail).toMatch(/invalid input syntax for type integer/);
      expect(String(error.extras.detail)).not.toContain(PASSWORD);
      expect(String(error.extras.detail)).toContain('********');
    } finally {
      await d.close();
    }
  });
});
