import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ROOT, type Server, stopChild } from './process.ts';

/**
 * The peers of the `peers` scenario: PostGraphile 4 and Platformatic DB 2,
 * each its own Node process on a free loopback port, in its documented
 * production mode. They live in bench/peers with their own package.json and
 * lockfile, installed on the scenario's first use (never by the project's
 * install: bench/peers is no workspace).
 */

export const PEERS_DIR = join(ROOT, 'bench/peers');
/** Database sessions each server may hold: Sluice's SLUICE_POOL_MAX (and SLUICE_POOL_SIZE), PostGraphile's --max-pool-size, Platformatic's db.poolSize. */
export const POOL_SIZE = 10;
/** Platformatic's `db.limit.max`: its largest page, as the 1,000-row page case needs. */
export const PLATFORMATIC_MAX_PAGE = 1000;

export function installPeers(log: (message: string) => void): void {
  if (existsSync(join(PEERS_DIR, 'node_modules'))) return;
  log('installing bench/peers (npm ci, first use)');
  execFileSync('npm', ['ci', '--prefix', PEERS_DIR, '--no-audit', '--no-fund'], { cwd: PEERS_DIR, stdio: 'inherit' });
}

export function peerVersion(pkg: string): string {
  return (JSON.parse(readFileSync(join(PEERS_DIR, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Spawns `node <bin> ...args` (so the pid is the server's Node process) and waits until `ready(url)` answers true. */
async function startPeer(name: string, bin: string, args: string[], env: Record<string, string>, logFile: string, port: number, ready: (url: string) => Promise<boolean>): Promise<Server> {
  const out = openSync(logFile, 'a');
  const child: ChildProcess = spawn(process.execPath, [join(PEERS_DIR, 'node_modules', bin), ...args], {
    cwd: PEERS_DIR,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production', ...env },
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  const url = `http://127.0.0.1:${port}`;
  const tail = () => readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n');
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}):\n${tail()}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not answer within 90 s:\n${tail()}`);
    }
    if (await ready(url).catch(() => false)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    pid: child.pid!,
    logFile,
    assertAlive() {
      if (child.exitCode === null && child.signalCode === null) return;
      throw new Error(`${name} (pid ${child.pid}) exited (${child.exitCode ?? child.signalCode}); end of its log:\n${tail()}`);
    },
    stop: () => stopChild(child),
  };
}

/**
 * PostGraphile's CLI with the options its docs give for production: no
 * GraphiQL, no query log, no watch mode, no extended errors or stacks.
 */
export async function startPostgraphile(dbUrl: string, workDir: string): Promise<Server> {
  const port = await freePort();
  const args = ['-c', dbUrl, '--schema', 'public', '--host', '127.0.0.1', '--port', String(port), '--max-pool-size', String(POOL_SIZE),
    '--disable-graphiql', '--disable-query-log', '--no-setof-functions-contain-nulls', '--disable-default-mutations'];
  return startPeer('PostGraphile', 'postgraphile/cli.js', args, {}, join(workDir, 'postgraphile.log'), port, async (url) => {
    const res = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{__typename}"}' });
    return res.ok;
  });
}

/**
 * Platformatic DB's `start` (not `dev`: no watch, no reload) on a config
 * of its own: the REST API (OpenAPI on), GraphQL off, the pool at
 * POOL_SIZE, pages up to PLATFORMATIC_MAX_PAGE, request logging at `warn`.
 */
export async function startPlatformatic(dbUrl: string, workDir: string): Promise<Server> {
  const port = await freePort();
  const config = join(workDir, 'platformatic.db.json');
  writeFileSync(config, JSON.stringify({
    $schema: `https://schemas.platformatic.dev/@platformatic/db/${peerVersion('@platformatic/db')}.json`,
    server: { hostname: '127.0.0.1', port, logger: { level: 'warn' } },
    db: { connectionString: dbUrl, poolSize: POOL_SIZE, graphql: false, openapi: true, limit: { default: 10, max: PLATFORMATIC_MAX_PAGE } },
    watch: false,
  }, null, 2));
  return startPeer('Platformatic DB', '@platformatic/db/db.mjs', ['start', '-c', config], {}, join(workDir, 'platformatic.log'), port, async (url) => {
    const res = await fetch(`${url}/films?limit=1`);
    return res.ok;
  });
}
