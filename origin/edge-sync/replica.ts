import { createHash } from 'node:crypto';
import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import { periodEnd, periodKey } from '../access/periods.ts';
import { budgetCheck } from '../access/day-budgets.ts';
import type { Env } from '../env.ts';
import { FORMATS } from '../formats/index.ts';
import { connectionEngine, type Engine } from '../sql/engine.ts';
import { rowLimits, parseRowOptions } from '../services/run/options.ts';
import { inspect } from '../sql/index.ts';
import type { StoreDb } from '../store/open.ts';
import { type ApiKeyRow, administrators, apiKeys, connections, queries, queryVersions, usageCounters } from '../store/schema/index.ts';
import { completeGrants } from '../../shared/access/grants-input.ts';
import { countsDay } from '../../shared/access/grants.ts';
import { formatRate } from '../../shared/access/rate.ts';
import type { ReplicaState, EdgeKey, EdgeQuery, EdgeQueryCache, EdgeSecret, EdgeSettings } from '../../shared/edge/replica.ts';
import { parseDefinitions } from '../../shared/parameters/index.ts';
import { offsetMinutesAt } from '../time.ts';

/**
 * The edge replica (shared/edge/replica.ts) as this origin's store and
 * settings make it: every scoped key by its secrets, every published query,
 * and the settings the edge answers by. Read whole for each push and diffed
 * against what the edge holds (origin/edge-sync/sync.ts).
 */

type ReplicaEnv = Pick<Env, 'SLUICE_API_KEY' | 'SLUICE_RATE_LIMIT' | 'SLUICE_MAX_PAGE_SIZE' | 'SLUICE_QUERY_TIMEOUT' | 'SLUICE_STREAM_MAX_ROWS' | 'SLUICE_CORS_ORIGINS'>;

export async function readReplica(db: StoreDb, env: ReplicaEnv): Promise<ReplicaState> {
  const [keyRows, queryRows, anyAdministrator] = await Promise.all([
    db.select().from(apiKeys),
    db
      .select({
        query: queries,
        version: queryVersions,
        connection: { db: connections.db, options: connections.options, active: connections.active, workspace: connections.workspace },
      })
      .from(queries)
      .innerJoin(queryVersions, and(eq(queryVersions.queryId, queries.id), eq(queryVersions.version, queries.publishedVersion)))
      .leftJoin(connections, eq(connections.name, queryVersions.connectionName))
      .where(isNotNull(queries.publishedVersion)),
    db.select({ id: administrators.id }).from(administrators).limit(1),
  ]);

  const spent = await spentBudgets(db, keyRows);
  // Entries as lists first: names like `__proto__` must become own keys (Object.fromEntries), never prototypes.
  const keys: Array<[string, EdgeKey]> = [];
  const secrets: Array<[string, EdgeSecret]> = [];
  for (const row of keyRows) {
    keys.push([
      String(row.id),
      {
        id: row.id,
        name: row.name,
        workspace: row.workspace,
        grants: completeGrants(row.grants),
        active: row.active,
        expiresAtMs: row.expiresAt === null ? null : endOfDay(row.expiresAt),
        budgetSpent: spent.get(row.name) ?? null,
      },
    ]);
    secrets.push([row.secretHash, { keyId: row.id, previous: false, untilMs: null }]);
    if (row.previousSecretHash) secrets.push([row.previousSecretHash, { keyId: row.id, previous: true, untilMs: row.previousExpiresAt?.getTime() ?? 0 }]);
  }

  const published = queryRows.map(({ query, version, connection }): [string, EdgeQuery] => [
    query.name,
    {
      name: query.name,
      collection: query.collection,
      workspace: query.workspace,
      version: version.version,
      connection: version.connectionName,
      connectionWorkspace: connection?.workspace ?? null,
      cacheTtl: version.cacheTtl ?? 0,
      cache: connection?.active ? edgeCache(version, connectionEngine(connection.db, connection.options)) : null,
    },
  ]);

  return {
    settings: settingsOf(env, keyRows.length > 0 || anyAdministrator.length > 0),
    keys: Object.fromEntries(keys),
    secrets: Object.fromEntries(secrets),
    queries: Object.fromEntries(published),
  };
}

/**
 * The keys whose day budget is spent, by name, from today's counts (a
 * budgeted key's runs are written as they end, so every origin's are
 * there), each until the day's end.
 */
async function spentBudgets(db: StoreDb, keyRows: ApiKeyRow[]): Promise<Map<string, NonNullable<EdgeKey['budgetSpent']>>> {
  const spent = new Map<string, NonNullable<EdgeKey['budgetSpent']>>();
  const budgeted = keyRows.filter((row) => countsDay(row.grants.budget ?? null));
  if (budgeted.length === 0) return spent;
  const now = Date.now();
  const counted = await db
    .select()
    .from(usageCounters)
    .where(and(eq(usageCounters.period, periodKey('day', now)), inArray(usageCounters.caller, budgeted.map((row) => row.name))));
  const byName = new Map(counted.map((row) => [row.caller, row]));
  for (const row of budgeted) {
    const used = byName.get(row.name);
    if (!used) continue;
    const check = budgetCheck(row.grants.budget!, { rows: used.rows, db_seconds: used.dbMs / 1000 }, now);
    if (check.exhausted) spent.set(row.name, { budget: check.budget, spent: check.spent, limit: check.limit, untilMs: periodEnd('day', now) });
  }
  return spent;
}

function settingsOf(env: ReplicaEnv, anyCaller: boolean): EdgeSettings {
  const limits = rowLimits(env);
  const defaults = parseRowOptions({}, {}, limits);
  return {
    authenticationOn: env.SLUICE_API_KEY !== undefined || anyCaller,
    adminKeyHash: env.SLUICE_API_KEY === undefined ? null : createHash('sha256').update(env.SLUICE_API_KEY).digest('hex'),
    serverRateLimit: env.SLUICE_RATE_LIMIT ? formatRate(env.SLUICE_RATE_LIMIT) : null,
    formats: [...FORMATS],
    defaultFormat: defaults.format,
    maxPageSize: limits.maxPageSize,
    defaultPageSize: defaults.paging!.pageSize,
    corsOrigins: env.SLUICE_CORS_ORIGINS,
  };
}

/** The epoch ms at which a key valid through `YYYY-MM-DD` expires: the end of that day in the server's zone. */
function endOfDay(date: string): number {
  const [y, m, d] = date.split('-').map(Number);
  const noonUtc = Date.UTC(y!, m! - 1, d!, 12);
  // Local noon of that date, whatever the zone's offset (-12..+14 hours), lies within the date.
  return periodEnd('day', noonUtc - offsetMinutesAt(noonUtc) * 60_000);
}

type VersionRow = typeof queryVersions.$inferSelect;

/** Analyses per version and engine (a jdbc connection's from its URL): a version's SQL never changes. */
const analysed = new Map<string, EdgeQueryCache | null>();
const ANALYSED_MAX = 10_000;

/** Any `{name}` text: such SQL is substituted as text at run time, which only the origin does. */
const LEGACY_PLACEHOLDER = /\{[A-Za-z_][A-Za-z0-9_]*\}/;

/**
 * What the edge needs to serve this published version from its cache, or
 * null when it never may and must forward: the edge caches only what it can
 * key exactly as the origin does, namely one read statement with a
 * `cache_ttl`, on an active connection, with no `from_claim` parameter (the
 * sign-in token is verified by the origin) and no legacy `{name}` text.
 */
function edgeCache(version: VersionRow, engine: Engine): EdgeQueryCache | null {
  if (version.queryType !== 'sql' || version.sql === null || !(version.cacheTtl && version.cacheTtl > 0)) return null;
  const memo = `${version.id}|${engine}`;
  if (analysed.has(memo)) return analysed.get(memo)!;
  let result: EdgeQueryCache | null = null;
  const parsed = parseDefinitions(version.parameters);
  if (!('errors' in parsed) && !Object.values(parsed.rules).some((rule) => rule.from_claim !== undefined) && !LEGACY_PLACEHOLDER.test(version.sql)) {
    const info = inspect(version.sql, engine);
    if (info.statementCount === 1 && info.isRead) result = { parameters: version.parameters, markers: [...info.markers] };
  }
  if (analysed.size >= ANALYSED_MAX) analysed.clear();
  analysed.set(memo, result);
  return result;
}
