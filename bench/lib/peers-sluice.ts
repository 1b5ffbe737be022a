import { randomBytes } from 'node:crypto';
import type { BenchContext } from './context.ts';
import { pgConnectionFields } from './dataset.ts';
import { startBenchOrigin, type BenchOrigin } from './origin.ts';
import { PAGE_ROWS } from './peer-targets.ts';
import { POOL_SIZE } from './peers.ts';

/**
 * Sluice for the `peers` scenario: the origin as every scenario starts it,
 * with authentication on (a server key for setting up), its store on the
 * PostgreSQL server (another database than `films`), SLUICE_POOL_SIZE and
 * SLUICE_POOL_MAX at the peers' pool size, a connection to the films database, the saved
 * queries, and a scoped key granted those queries: what a client calls `/q`
 * with in production.
 */

const QUERIES = [
  { name: 'films_row', sql: 'select * from films where id = :id', parameters: { id: { type: 'integer', min: 0 } }, cache_ttl: null },
  { name: 'films_row_cached', sql: 'select * from films where id = :id', parameters: { id: { type: 'integer', min: 0 } }, cache_ttl: 3600 },
  { name: 'films_page', sql: `select * from films where id > :after order by id limit ${PAGE_ROWS}`, parameters: { after: { type: 'integer' } }, cache_ttl: null },
  { name: 'films_all', sql: 'select * from films', parameters: {}, cache_ttl: null },
];

export interface PeersOrigin {
  origin: BenchOrigin;
  /** The scoped key's secret. */
  key: string;
}

async function admin(origin: BenchOrigin, adminKey: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${origin.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': adminKey },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

export async function startPeersOrigin(ctx: BenchContext, filmsUrl: string): Promise<PeersOrigin> {
  const adminKey = randomBytes(24).toString('hex');
  const origin = await startBenchOrigin(ctx.workDir, 'peers', {
    env: { SLUICE_API_KEY: adminKey, SLUICE_POOL_SIZE: String(POOL_SIZE), SLUICE_POOL_MAX: String(POOL_SIZE), SLUICE_QUERY_TIMEOUT: '0' },
    store: { serverUrl: ctx.pgUrl },
  });
  try {
    await admin(origin, adminKey, '/api/v1/connections', { name: 'films', ...pgConnectionFields(filmsUrl), options: { sslmode: 'disable' } });
    for (const q of QUERIES) await admin(origin, adminKey, '/api/v1/queries', { ...q, connection_name: 'films', publish: true });
    const key = await admin(origin, adminKey, '/api/v1/api-keys', { name: 'bench-peers', queries: QUERIES.map((q) => q.name) });
    return { origin, key: String(key.secret) };
  } catch (error) {
    await origin.stop();
    throw error;
  }
}
