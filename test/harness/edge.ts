import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type AddressInfo, createServer } from 'node:net';
import { Miniflare } from 'miniflare';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

export interface EdgeOptions {
  /** The origin the edge forwards to. */
  originUrl: string;
  /** Shared with the origin (SLUICE_EDGE_SECRET). */
  secret: string;
}

export interface Edge {
  url: string;
  miniflare: Miniflare;
  stop(): Promise<void>;
}

/** A new random edge secret (64 hex characters). */
export const edgeSecret = () => randomBytes(32).toString('hex');

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => join(e.parentPath, e.name));
}

let built: Promise<string> | undefined;

/**
 * The Worker as `wrangler deploy --dry-run` bundles it (the very bundle a
 * deploy uploads), built once per source state: the output is kept under
 * node_modules/.cache by a hash of edge/, shared/ and wrangler.toml, so test
 * processes share one build.
 */
export function buildEdge(): Promise<string> {
  built ??= (async () => {
    const files = [join(root, 'wrangler.toml'), join(root, 'package-lock.json'), ...(await sourceFiles(join(root, 'edge'))), ...(await sourceFiles(join(root, 'shared')))].sort();
    const hash = createHash('sha256');
    for (const file of files) hash.update(relative(root, file)).update('\0').update(await readFile(file)).update('\0');
    const dir = join(root, 'node_modules/.cache/sluice-edge', hash.digest('hex').slice(0, 16));
    const script = join(dir, 'worker.js');
    if (await stat(script).then(() => true, () => false)) return script;
    const scratch = await mkdtemp(join(tmpdir(), 'sluice-edge-build-'));
    await run(join(root, 'node_modules/.bin/wrangler'), ['deploy', '--dry-run', '--outdir', scratch], {
      cwd: root,
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', NO_COLOR: '1' },
    });
    await mkdir(join(dir, '..'), { recursive: true });
    // Another process may have finished the same build meanwhile: either copy is the same bundle.
    await rename(scratch, dir).catch(() => rm(scratch, { recursive: true, force: true }));
    return script;
  })();
  return built;
}

async function compatibilityDate(): Promise<string> {
  const toml = await readFile(join(root, 'wrangler.toml'), 'utf8');
  const match = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(toml);
  if (!match) throw new Error('wrangler.toml has no compatibility_date');
  return match[1]!;
}

/**
 * Starts the real Worker on workerd through Miniflare's programmatic API,
 * with the bindings of wrangler.toml (the directory and rate-limit Durable
 * Objects in memory, `caches.default`) on a free port.
 */
export async function startEdge(options: EdgeOptions): Promise<Edge> {
  const miniflare = new Miniflare({
    modules: true,
    scriptPath: await buildEdge(),
    compatibilityDate: await compatibilityDate(),
    durableObjects: { DIRECTORY: 'DirectoryObject', RATE_LIMITER: 'RateLimiterObject' },
    bindings: { SLUICE_ORIGIN_URL: options.originUrl, SLUICE_EDGE_SECRET: options.secret },
    cf: false,
    host: '127.0.0.1',
    port: 0,
  });
  const url = (await miniflare.ready).href.replace(/\/$/, '');
  return {
    url,
    miniflare,
    stop: () => miniflare.dispose(),
  };
}

/** A port free right now (for a process that must be told its port before it starts). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once a line containing `text` is among `logs` (an origin's collected output). */
export async function waitForLog(logs: string[], text: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!logs.some((line) => line.includes(text))) {
    if (Date.now() > deadline) throw new Error(`no log line with "${text}" in ${timeoutMs / 1000} s:\n${logs.join('\n')}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
