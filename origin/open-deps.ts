import { mkdirSync, readFileSync } from 'node:fs';
import { CallerUsage } from './access/usage.ts';
import { createCache } from './cache/index.ts';
import { createRateLimiter } from './access/rate-limit/limiter.ts';
import { RedisBreaker } from './redis/breaker.ts';
import type { SignInVerifier } from './access/jwt.ts';
import type { AppDeps } from './deps.ts';
import { DriverRegistry } from './drivers/registry.ts';
import { PrivilegeChecks } from './services/connections/privilege-checks.ts';
import { type Env, poolMax } from './env.ts';
import type { Logger } from './observability/logger.ts';
import { ConnectionUsage } from './services/connections/usage.ts';
import { HistoryRecorder } from './services/history/recorder.ts';
import { openStore, storePlace } from './store/open.ts';
import { StoreAvailability } from './store/availability.ts';
import { configureAudit } from './audit/options.ts';
import { warnAboutAuditKey } from './audit/startup.ts';
import { warnAboutRefusedReferences, warnAboutStoredSecrets } from './secrets/startup.ts';
import { EdgeSync } from './edge-sync/sync.ts';
import { projectPath } from './paths.ts';
import { TRACING_OFF, openTracing, tracesUrl } from './observability/tracing/tracing.ts';

export interface OpenedDeps {
  deps: AppDeps;
  /** Writes what is queued (runs, usage), then closes drivers, store, cache and limiter. */
  close(): Promise<void>;
}

/**
 * Opens the store and builds everything the verbs need, from a parsed
 * environment: the origin's startup and the `sluice` command share it, so a
 * command acting on the store sees exactly what a server would (audit key and
 * limit, stored-secret warnings, drivers, caches). `edgeSync` is for a
 * serving origin only; it is made but not started. Throws `DataDirLocked`
 * when another process holds the embedded store. A serving origin also
 * opens tracing when the OpenTelemetry variables ask for it; a command never
 * traces.
 */
export async function openDeps(env: Env, logger: Logger, { signIn, serving }: { signIn: SignInVerifier; serving: boolean }): Promise<OpenedDeps> {
  const version: string = JSON.parse(readFileSync(projectPath('package.json'), 'utf8')).version;
  // The data dir holds the embedded store and local files (the examples dataset) whatever the store is.
  mkdirSync(env.SLUICE_DATA_DIR, { recursive: true });
  const place = { databaseUrl: env.SLUICE_DATABASE_URL, dataDir: env.SLUICE_DATA_DIR };
  const opening = performance.now();
  logger.info(`Opening ${storePlace(place)} and bringing its schema up to date`);
  const store = await openStore({ ...place, progress: (message) => logger.info(message) });
  logger.info(`Store ready in ${Math.round(performance.now() - opening)} ms`);
  configureAudit({ key: env.SLUICE_AUDIT_KEY ?? null, limit: env.SLUICE_AUDIT_LOG_LIMIT ?? null });
  await warnAboutAuditKey(store, env.SLUICE_AUDIT_KEY ?? null, logger);
  await warnAboutStoredSecrets({ env, store, logger });
  await warnAboutRefusedReferences({ env, store, logger });
  const drivers = new DriverRegistry({
    poolSize: env.SLUICE_POOL_SIZE,
    poolMax: poolMax(env),
    poolIdleTimeoutMs: env.SLUICE_POOL_IDLE_TIMEOUT * 1000,
    allowWrites: env.SLUICE_ALLOW_WRITES,
  });
  const history = new HistoryRecorder(store, { retentionDays: env.SLUICE_HISTORY_RETENTION_DAYS, logger });
  // Trims history kept past its retention once at startup; later flushes trim at most once a minute.
  void history.flush();
  // One connection for the cache and the rate limits: one breaker, one line per outage.
  const redis = env.SLUICE_REDIS_URL ? await RedisBreaker.open(env.SLUICE_REDIS_URL, logger) : null;
  const cache = createCache(env, redis);
  const rateLimiter = createRateLimiter(env, redis, logger);
  // A spent budget is pushed to the edge like a revocation, so the edge refuses the key itself.
  const callerUsage = new CallerUsage(store, { logger, onBudgetSpent: () => void edgeSync?.changed() });
  history.on('run', (run) => callerUsage.recordRun(run));
  const edgeSync: EdgeSync | undefined =
    serving && env.SLUICE_EDGE_URL
      ? new EdgeSync({ url: env.SLUICE_EDGE_URL, secret: env.SLUICE_EDGE_SECRET!, store, env, logger, leaseMs: env.SLUICE_EDGE_LEASE * 1000 })
      : undefined;
  const storeAvailability = new StoreAvailability(store, logger);
  const tracing = serving ? await openTracing(env, version) : TRACING_OFF;
  if (tracing.on) logger.info({ url: shownUrl(tracesUrl(env)), sampler: env.OTEL_TRACES_SAMPLER }, 'Tracing on: spans go to the OTLP receiver');
  const deps: AppDeps = {
    env,
    store,
    storeAvailability,
    drivers,
    usage: new ConnectionUsage(),
    privileges: new PrivilegeChecks(logger),
    callerUsage,
    rateLimiter,
    signIn,
    history,
    cache,
    logger,
    version,
    edgeSync,
    tracing,
  };
  return {
    deps,
    async close() {
      edgeSync?.stop();
      storeAvailability.stop();
      await drivers.closeAll().catch(() => {});
      // Queued runs are written before the store closes.
      await history.close().catch(() => {});
      await callerUsage.close().catch(() => {});
      await store.close().catch(() => {});
      await cache.close().catch(() => {});
      await rateLimiter.close().catch(() => {});
      await redis?.close().catch(() => {});
      await tracing.close().catch(() => {});
    },
  };
}

/** A URL as a log line may show it: no user or password. */
function shownUrl(text: string): string {
  const url = new URL(text);
  url.username = '';
  url.password = '';
  return url.href;
}
