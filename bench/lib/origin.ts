import { join } from 'node:path';
import postgres from 'postgres';
import { startServer, type Server } from './process.ts';

export interface BenchOrigin extends Server {
  /** POST /api/v1/connections; throws unless 201. */
  addConnection(fields: Record<string, unknown>): Promise<void>;
}

export interface OriginOptions {
  env?: Record<string, string>;
  /**
   * `embedded`: the default PGlite store in a fresh data dir. A PostgreSQL URL:
   * the store in a fresh database on that server, dropped when the origin
   * stops (the streaming scenarios use it so the origin's memory is the
   * stream's, not PGlite's: see bench/README.md).
   */
  store: 'embedded' | { serverUrl: string };
}

async function freshDatabase(serverUrl: string, name: string, drop = false): Promise<string> {
  const sql = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    if (!drop) await sql.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await sql.end({ timeout: 5 });
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * The real origin (`dist/origin/main.mjs`, built by bench/run.ts as `npm start` builds it) as its own process: a fresh data dir,
 * the examples off (nothing else competes), the server zone fixed, the
 * default log level (an access line per request, as in production) written
 * to a file.
 */
export async function startBenchOrigin(workDir: string, name: string, options: OriginOptions): Promise<BenchOrigin> {
  const storeDb = `sluice_bench_store_${name.replace(/\W/g, '_')}`;
  const storeUrl = options.store === 'embedded' ? null : await freshDatabase(options.store.serverUrl, storeDb);
  const server = await startServer(
    'dist/origin/main.mjs',
    {
      TZ: 'Europe/Paris',
      SLUICE_PORT: '0',
      SLUICE_DATA_DIR: join(workDir, `${name}-data`),
      SLUICE_EXAMPLES: '0',
      // The bench's DuckDB files live in its work dir (connections may name files only there).
      SLUICE_FILE_DIRS: workDir,
      ...(storeUrl ? { SLUICE_DATABASE_URL: storeUrl } : {}),
      ...options.env,
    },
    join(workDir, `${name}.log`),
  );
  return {
    ...server,
    async stop() {
      await server.stop();
      if (options.store !== 'embedded') await freshDatabase(options.store.serverUrl, storeDb, true);
    },
    async addConnection(fields) {
      const res = await fetch(`${server.url}/api/v1/connections`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(options.env?.SLUICE_API_KEY ? { 'x-api-key': options.env.SLUICE_API_KEY } : {}) },
        body: JSON.stringify(fields),
      });
      if (res.status !== 201) throw new Error(`creating connection ${String(fields.name)}: ${res.status} ${await res.text()}`);
    },
  };
}
