import { mkdirSync, readFileSync } from 'node:fs';
import { serve } from '@hono/node-server';
import { CallerUsage } from './access/usage.ts';
import { createApp } from './app.ts';
import { createCache } from './cache/index.ts';
import { createRateLimiter } from './access/rate-limit/limiter.ts';
import { createSignInVerifier } from './access/jwt.ts';
import { DriverRegistry } from './drivers/registry.ts';
import { parseEnv } from './env.ts';
import { createLogger } from './observability/logger.ts';
import { ensureExamples } from './services/examples/ensure.ts';
import { StartupConfigError, applyStartupFile } from './services/config/startup.ts';
import { ConnectionUsage } from './services/connections/usage.ts';
import { HistoryRecorder } from './services/history/recorder.ts';
import { DataDirLocked } from './store/dir-lock.ts';
import { openStore } from './store/open.ts';
import { AuditDeliverer } from './audit/delivery/deliverer.ts';
import { configuredOutputs } from './audit/delivery/outputs.ts';
import { configureAudit } from './audit/options.ts';
import { warnAboutAuditKey } from './audit/startup.ts';
import { warnAboutStoredSecrets } from './secrets/startup.ts';
import { EdgeSync } from './edge-sync/sync.ts';
import { projectPath } from './paths.ts';

const logger = createLogger(process.env);

let env;
try {
  env = parseEnv(process.env);
} catch (err) {
  logger.fatal((err as Error).message);
  process.exit(1);
}
if (env.SLUICE_EDGE_URL && !env.SLUICE_EDGE_SECRET) {
  logger.fatal('Invalid environment:\n  SLUICE_EDGE_URL: needs SLUICE_EDGE_SECRET (the secret shared with the edge)');
  process.exit(1);
}

// A JWKS file that cannot be used stops startup, naming the variable.
const signIn = await createSignInVerifier(env, logger).catch((err: Error) => {
  logger.fatal(err.message);
  process.exit(1);
});
const version: string = JSON.parse(readFileSync(projectPath('package.json'), 'utf8')).version;
// The data dir holds the embedded store and local files (the examples dataset) whatever the store is.
mkdirSync(env.SLUICE_DATA_DIR, { recursive: true });
const store = await openStore({ databaseUrl: env.SLUICE_DATABASE_URL, dataDir: env.SLUICE_DATA_DIR }).catch((err: Error) => {
  if (!(err instanceof DataDirLocked)) throw err;
  logger.fatal(err.message);
  process.exit(1);
});
configureAudit({ key: env.SLUICE_AUDIT_KEY ?? null, limit: env.SLUICE_AUDIT_LOG_LIMIT ?? null });
await warnAboutAuditKey(store, env.SLUICE_AUDIT_KEY ?? null, logger);
await warnAboutStoredSecrets({ env, store, logger });
const drivers = new DriverRegistry({
  poolSize: env.SLUICE_POOL_SIZE,
  poolIdleTimeoutMs: env.SLUICE_POOL_IDLE_TIMEOUT * 1000,
  allowWrites: env.SLUICE_ALLOW_WRITES,
});
const history = new HistoryRecorder(store, { retentionDays: env.SLUICE_HISTORY_RETENTION_DAYS, logger });
// Trims history kept past its retention once at startup; later flushes trim at most once a minute.
void history.flush();
const cache = await createCache(env, logger);
const rateLimiter = await createRateLimiter(env, logger);
const callerUsage = new CallerUsage(store, { logger });
history.on('run', (run) => callerUsage.recordRun(run));
const edgeSync = env.SLUICE_EDGE_URL
  ? new EdgeSync({ url: env.SLUICE_EDGE_URL, secret: env.SLUICE_EDGE_SECRET!, store, env, logger, leaseMs: env.SLUICE_EDGE_LEASE * 1000 })
  : undefined;
const deps = { env, store, drivers, usage: new ConnectionUsage(), callerUsage, rateLimiter, signIn, history, cache, logger, version, edgeSync };
if (env.SLUICE_EXAMPLES) await ensureExamples(deps);
// An unapplicable file stops startup, its problems in one block.
if (env.SLUICE_CONFIG_FILE) {
  await applyStartupFile(deps, env.SLUICE_CONFIG_FILE, { prune: env.SLUICE_CONFIG_PRUNE }).catch((err: Error) => {
    if (!(err instanceof StartupConfigError)) throw err;
    err.report(logger);
    process.exit(1);
  });
}
const auditDelivery = new AuditDeliverer(store, configuredOutputs(env, version), logger);
auditDelivery.start();

const server = serve({ fetch: createApp(deps).fetch, hostname: env.SLUICE_HOST, port: env.SLUICE_PORT }, (info) => {
  logger.info({ host: info.address, port: info.port, store: store.kind }, `Sluice ${version} listening on http://${env.SLUICE_HOST}:${info.port}`);
  edgeSync?.start();
});
server.once('error', (err: NodeJS.ErrnoException) => {
  const address = `${env.SLUICE_HOST}:${env.SLUICE_PORT}`;
  const hint =
    err.code === 'EADDRINUSE'
      ? `${address} is already in use (EADDRINUSE): stop what listens there, or set SLUICE_PORT to a free port`
      : `cannot listen on ${address} (${err.code ?? err.message}): check SLUICE_HOST and SLUICE_PORT`;
  logger.fatal(hint);
  process.exit(1);
});

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  server.close();
  edgeSync?.stop();
  await drivers.closeAll().catch(() => {});
  // Queued runs are written before the store closes.
  await history.close().catch(() => {});
  await callerUsage.close().catch(() => {});
  await auditDelivery.stop().catch(() => {});
  await store.close().catch(() => {});
  await cache.close().catch(() => {});
  await rateLimiter.close().catch(() => {});
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
