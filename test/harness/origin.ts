import { type ChildProcess, spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import launch from '../../scripts/origin-launch.json';
import { type Edge, edgeFetch, edgeSecret, freePort, startEdge, waitForLog } from './edge.ts';
import { recordOrigin, recordingFetch } from './run-record.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** The bundle global-setup.ts builds once per run (scripts/build.mjs), run with `npm start`'s flags and environment. */
const bundle = join(root, 'dist/origin/main.mjs');

export interface OriginOptions {
  env?: Record<string, string>;
  /** Start from this data dir instead of a fresh copy of the migrated template. */
  dataDir?: string;
  /** Copy the template (migrated store, examples loaded). Default true. */
  template?: boolean;
  /**
   * Put the edge Worker (Miniflare) in front: `url`, `fetch` and `call` then
   * go through it. Default: `SLUICE_TEST_THROUGH_EDGE=1`, so the black-box
   * suites run a second time through the edge unchanged.
   */
  edge?: boolean;
  /** More variables of the edge Worker in front (with `edge`). */
  edgeBindings?: Record<string, string>;
}

export interface Origin {
  /** Where requests go: the origin, or the edge in front of it. */
  url: string;
  /** The origin itself, bypassing any edge. */
  originUrl: string;
  /** The edge in front, when there is one. */
  edge?: Edge;
  dataDir: string;
  /** Every line the process printed (stdout and stderr). */
  logs: string[];
  fetch(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  /** Fetch and parse JSON, returning status, headers and body. */
  call<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; headers: Headers; body: T }>;
  stop(): Promise<void>;
  process: ChildProcess;
}

/**
 * SLUICE_FILE_DIRS of every test origin: the temporary folder the tests make
 * their SQLite, DuckDB and H2 files in, and the system's JDBC jars. The data
 * dir lies in the temporary folder too, and stays refused all the same.
 */
export const TEST_FILE_DIRS = [realpathSync(tmpdir()), '/usr/share/java'].join(',');

/** A path for a test's SQLite or DuckDB file inside TEST_FILE_DIRS (a relative one would lie in the data dir, which is refused). */
export const testFile = (name: string): string => join(realpathSync(tmpdir()), name);

/** The template data dir made by `global-setup.ts`: migrated store, examples loaded. */
export function templateDir(): string {
  const dir = process.env.SLUICE_TEST_TEMPLATE;
  if (!dir) throw new Error('SLUICE_TEST_TEMPLATE is not set: run tests through vitest (test/global-setup.ts)');
  return dir;
}

/**
 * The port an origin process names in its startup line; every line of its
 * output (stdout and stderr) goes to `onLine`. Rejects when it exits first or
 * says nothing of the kind in 60 s.
 */
export function listeningPort(child: ChildProcess, onLine: (line: string) => void): Promise<number> {
  const seen: string[] = [];
  return new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`origin did not start in 60 s:\n${seen.join('\n')}`)), 60_000);
    const read = (line: string) => {
      seen.push(line);
      onLine(line);
      const match = /"port":(\d+)/.exec(line);
      if (match && line.includes('listening')) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    createInterface({ input: child.stdout! }).on('line', read);
    createInterface({ input: child.stderr! }).on('line', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`origin exited with ${code} before listening:\n${seen.join('\n')}`));
    });
  });
}

/**
 * Starts the real origin as a child process on a free port (SLUICE_PORT=0,
 * read back from its startup line) with its own data dir, and waits until it
 * answers /health.
 */
export async function startOrigin(options: OriginOptions = {}): Promise<Origin> {
  if (options.edge ?? process.env.SLUICE_TEST_THROUGH_EDGE === '1') return startBehindEdge(options);
  let dataDir = options.dataDir;
  if (!dataDir) {
    dataDir = await mkdtemp(join(tmpdir(), 'sluice-test-'));
    if (options.template !== false) await cp(templateDir(), dataDir, { recursive: true });
  }
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...launch.env,
    TZ: process.env.TZ ?? 'Europe/Paris',
    SLUICE_PORT: '0',
    SLUICE_DATA_DIR: dataDir,
    SLUICE_FILE_DIRS: TEST_FILE_DIRS,
    ...options.env,
  };
  const child = spawn(process.execPath, [...launch.nodeFlags, bundle], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: string[] = [];
  // Every line also goes to the run's record, for the whole-run secret scan (global-setup.ts).
  const record = recordOrigin(env);
  child.once('close', () => record.close());
  const port = await listeningPort(child, (line) => {
    logs.push(line);
    record.line(line);
  });
  const url = `http://127.0.0.1:${port}`;
  const doFetch = recordingFetch((path, init = {}) => {
    const { json, ...rest } = init;
    if (json !== undefined) {
      rest.body = JSON.stringify(json);
      rest.headers = { 'content-type': 'application/json', ...(rest.headers as Record<string, string>) };
    }
    return fetch(url + path, rest);
  });
  const ownDir = !options.dataDir;
  return {
    url,
    originUrl: url,
    dataDir,
    logs,
    process: child,
    fetch: doFetch,
    async call(method, path, body, headers = {}) {
      const res = await doFetch(path, { method, headers, ...(body === undefined ? {} : { json: body }) });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text === '' ? null : JSON.parse(text);
      } catch {
        /* not JSON: keep the text */
      }
      return { status: res.status, headers: res.headers, body: parsed as any };
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      if (ownDir) await rm(dataDir!, { recursive: true, force: true });
    },
  };
}

/**
 * Resolves once every line `origin` printed before the call is in its
 * `logs`: a request sent now is logged after them, on the same output, so
 * once its access line is read they all are. For checks that a line was
 * not logged, instead of waiting a while.
 */
export async function logsCaughtUp(origin: Origin): Promise<void> {
  const res = await fetch(`${origin.originUrl}/health`);
  await res.arrayBuffer();
  await waitForLog(origin.logs, res.headers.get('x-request-id')!);
}

/**
 * An origin with the edge in front: the edge is started first (its origin
 * URL names a port picked for the origin), then the origin pushing its
 * replica to it; ready once the origin logs its first push.
 */
async function startBehindEdge(options: OriginOptions, attempt = 1): Promise<Origin> {
  const port = await freePort();
  const secret = edgeSecret();
  const edge = await startEdge({ originUrl: `http://127.0.0.1:${port}`, secret, bindings: options.edgeBindings });
  let origin: Origin;
  try {
    origin = await startOrigin({
      ...options,
      edge: false,
      env: { SLUICE_PORT: String(port), SLUICE_EDGE_URL: edge.url, SLUICE_EDGE_SECRET: secret, ...options.env },
    });
  } catch (err) {
    await edge.stop();
    // The port was free when picked, but the edge takes seconds to start: another process may take it meanwhile.
    if (attempt < 3 && String(err).includes('EADDRINUSE')) return startBehindEdge(options, attempt + 1);
    throw err;
  }
  try {
    await waitForLog(origin.logs, 'edge replica in sync');
  } catch (err) {
    await Promise.all([origin.stop(), edge.stop()]);
    throw err;
  }
  const viaEdge = recordingFetch((path, init = {}) => {
    const { json, ...rest } = init;
    if (json !== undefined) {
      rest.body = JSON.stringify(json);
      rest.headers = { 'content-type': 'application/json', ...(rest.headers as Record<string, string>) };
    }
    return edgeFetch(edge.url + path, rest);
  }, 'edge');
  return {
    ...origin,
    url: edge.url,
    edge,
    fetch: viaEdge,
    async call(method, path, body, headers = {}) {
      const res = await viaEdge(path, { method, headers, ...(body === undefined ? {} : { json: body }) });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text === '' ? null : JSON.parse(text);
      } catch {
        /* not JSON: keep the text */
      }
      return { status: res.status, headers: res.headers, body: parsed as any };
    },
    async stop() {
      await origin.stop();
      await edge.stop();
    },
  };
}
