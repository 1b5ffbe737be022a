import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import launch from '../../scripts/origin-launch.json';
import { listeningPort, type Origin, startOrigin, templateDir } from '../harness/origin.ts';

/**
 * What a newcomer meets first: the server's root, a second origin started on
 * the same embedded store, a port already taken.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const started: Origin[] = [];
const dirs: string[] = [];

afterAll(async () => {
  await Promise.all(started.map((origin) => origin.stop()));
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-first-run-'));
  dirs.push(dir);
  await cp(templateDir(), dir, { recursive: true });
  return dir;
}

async function start(options: Parameters<typeof startOrigin>[0]): Promise<Origin> {
  const origin = await startOrigin({ edge: false, ...options });
  started.push(origin);
  return origin;
}

/** Runs an origin expected to stop at startup: its exit code and every line it printed. */
function startRefused(env: Record<string, string>): Promise<{ code: number | null; lines: string[] }> {
  const child = spawn(process.execPath, [...launch.nodeFlags, join(root, 'dist/origin/main.mjs')], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...launch.env, TZ: 'Europe/Paris', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  return new Promise((resolve) => {
    listeningPort(child, (line) => lines.push(line)).then(
      () => {
        child.kill('SIGKILL');
        resolve({ code: null, lines });
      },
      () => child.exitCode !== null && resolve({ code: child.exitCode, lines }),
    );
    child.once('exit', (code) => resolve({ code, lines }));
  });
}

describe('GET /', () => {
  it('answers without a key, pointing to the docs, the OpenAPI document and health', async () => {
    const origin = await start({ env: { SLUICE_API_KEY: 'first-run-admin-key-0001' } });
    const res = await origin.call('GET', '/');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: 'Sluice', version: expect.any(String), links: { docs: '/docs', openapi: '/openapi.json', health: '/health' } });
    for (const path of Object.values(res.body.links as Record<string, string>)) expect((await origin.fetch(path)).status).toBe(200);
  });
});

describe('one origin per embedded store', () => {
  it('refuses a second origin on the same data dir, naming the directory and the holder; the first keeps working', async () => {
    const dir = await dataDir();
    const first = await start({ dataDir: dir });
    const refused = await startRefused({ SLUICE_PORT: '0', SLUICE_DATA_DIR: dir });
    expect(refused.code).toBe(1);
    const message = refused.lines.join('\n');
    expect(message).toContain(join(dir, 'store'));
    expect(message).toContain(`pid ${first.process.pid}`);
    expect(message).toContain('SLUICE_DATABASE_URL');
    expect(message).not.toMatch(/^\s+at /m);

    const saved = await first.call('POST', '/api/v1/queries', { name: 'still_mine', sql: 'SELECT 1 AS one', connection_name: 'examples' });
    expect(saved.status).toBe(201);
    expect((await first.call('GET', '/api/v1/queries/still_mine')).status).toBe(200);
  });

  it('takes over the lock of an origin that was killed', async () => {
    const dir = await dataDir();
    const killed = await start({ dataDir: dir });
    const gone = new Promise((resolve) => killed.process.once('exit', resolve));
    killed.process.kill('SIGKILL');
    await gone;
    expect(JSON.parse(await readFile(join(dir, 'store', 'sluice.lock'), 'utf8')).pid).toBe(killed.process.pid);
    const next = await start({ dataDir: dir });
    expect((await next.call('GET', '/health')).status).toBe(200);
  });

  it('gives the lock back on a clean stop', async () => {
    const dir = await dataDir();
    const first = await start({ dataDir: dir });
    await first.stop();
    await expect(readFile(join(dir, 'store', 'sluice.lock'), 'utf8')).rejects.toThrow(/ENOENT/);
  });
});

describe('a port already taken', () => {
  it('stops with one line naming the address and the variable to change', async () => {
    const first = await start({});
    const port = new URL(first.originUrl).port;
    const refused = await startRefused({ SLUICE_PORT: port, SLUICE_DATA_DIR: await dataDir() });
    expect(refused.code).toBe(1);
    const message = refused.lines.join('\n');
    expect(message).toContain(`127.0.0.1:${port} is already in use`);
    expect(message).toContain('SLUICE_PORT');
    expect(message).not.toMatch(/^\s+at /m);
  });
});
