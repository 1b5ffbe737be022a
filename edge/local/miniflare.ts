import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { Miniflare } from 'miniflare';

/**
 * The edge Worker run locally on workerd through Miniflare's programmatic
 * API (Node only; never part of the Worker): for `npm run edge`, the tests
 * and the bench. The bundle is the one `wrangler deploy --dry-run` makes.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

export interface LocalEdgeOptions {
  /** The origin the edge forwards to. */
  originUrl: string;
  /** Shared with the origin (SLUICE_EDGE_SECRET). */
  secret: string;
  host?: string;
  /** 0 (default): a free port. */
  port?: number;
  /** More Worker variables (the OpenTelemetry ones, say). */
  bindings?: Record<string, string>;
  /** Takes workerd's own output (stdout, stderr) instead of Miniflare's pass-through to this process's: the tests record it. */
  output?: (stdout: Readable, stderr: Readable) => void;
}

export interface LocalEdge {
  url: string;
  miniflare: Miniflare;
  stop(): Promise<void>;
}

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => join(e.parentPath, e.name));
}

let built: Promise<string> | undefined;

/**
 * The Worker bundled by `wrangler deploy --dry-run`, built once per source
 * state: kept under node_modules/.cache by a hash of edge/, shared/,
 * wrangler.toml and the lockfile, so processes share one build.
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

/** Starts the Worker with the bindings of wrangler.toml: both Durable Objects (in memory) and `caches.default`. */
export async function startLocalEdge(options: LocalEdgeOptions): Promise<LocalEdge> {
  const miniflare = new Miniflare({
    modules: true,
    scriptPath: await buildEdge(),
    compatibilityDate: await compatibilityDate(),
    durableObjects: { REPLICA: 'ReplicaObject', RATE_LIMITER: 'RateLimiterObject' },
    bindings: { ...options.bindings, SLUICE_ORIGIN_URL: options.originUrl, SLUICE_EDGE_SECRET: options.secret },
    cf: false,
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    ...(options.output ? { handleRuntimeStdio: options.output } : {}),
  });
  const url = (await miniflare.ready).href.replace(/\/$/, '');
  return { url, miniflare, stop: () => miniflare.dispose() };
}
