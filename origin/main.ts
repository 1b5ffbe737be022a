import { serve } from '@hono/node-server';
import { createApp } from './app.ts';
import { createSignInVerifier } from './access/jwt.ts';
import { type Env, parseEnv } from './env.ts';
import { createLogger } from './observability/logger.ts';
import { checkSavedConnections } from './services/connections/least-privilege.ts';
import { openDeps } from './open-deps.ts';
import { ensureExamples } from './services/examples/ensure.ts';
import { StartupConfigError, applyStartupFile } from './services/config/startup.ts';
import { DataDirLocked } from './store/dir-lock.ts';
import { AuditDeliverer } from './audit/delivery/deliverer.ts';
import { configuredOutputs } from './audit/delivery/outputs.ts';
import { mcpPortFetch } from './http/mcp-port.ts';
import { readSnapshot } from './access/directory-snapshot.ts';
import { resultRunner } from './services/results/runner.ts';
import { ORIGIN_STOPPED } from './services/results/start.ts';
import { startResultSweeper } from './services/results/sweep.ts';

const logger = createLogger(process.env);

/** Stops the start: a problem of several lines is a block of fatal lines, since a log line never holds a line break. */
function stop(message: string): never {
  for (const line of message.split('\n')) logger.fatal(line);
  process.exit(1);
}

let env: Env;
try {
  env = parseEnv(process.env);
} catch (err) {
  stop((err as Error).message);
}
if (env.SLUICE_EDGE_URL && !env.SLUICE_EDGE_SECRET) stop('Invalid environment:\n  SLUICE_EDGE_URL: needs SLUICE_EDGE_SECRET (the secret shared with the edge)');

// A JWKS file that cannot be used stops startup, naming the variable.
const signIn = await createSignInVerifier(env, logger).catch((err: Error) => stop(err.message));
const opened = await openDeps(env, logger, { signIn, serving: true }).catch((err: Error) => {
  if (!(err instanceof DataDirLocked)) throw err;
  stop(err.message);
});
const { deps } = opened;
const { store, edgeSync } = deps;
// Said as soon as it is known, among the first lines: after the config file when there is one, since it may make keys.
if (!env.SLUICE_CONFIG_FILE) await warnIfOpen();
if (env.SLUICE_EXAMPLES) await ensureExamples(deps);
// An unapplicable file stops startup, its problems in one block.
if (env.SLUICE_CONFIG_FILE) {
  await applyStartupFile(deps, env.SLUICE_CONFIG_FILE, { prune: env.SLUICE_CONFIG_PRUNE }).catch((err: Error) => {
    if (!(err instanceof StartupConfigError)) throw err;
    err.report(logger);
    process.exit(1);
  });
  await warnIfOpen();
}
const auditDelivery = new AuditDeliverer(store, configuredOutputs(env, deps.version), logger);
auditDelivery.start();

const app = createApp(deps);
const stopSweepingResults = startResultSweeper(deps);
deps.ports = {};
const server = serve({ fetch: app.fetch, hostname: env.SLUICE_HOST, port: env.SLUICE_PORT }, (info) => {
  deps.ports!.main = info.port;
  logger.info({ host: info.address, port: info.port, store: store.kind }, `Sluice ${deps.version} listening on http://${env.SLUICE_HOST}:${info.port}`);
  edgeSync?.start();
  // Each saved connection's database user, asked once: a line per connection that may do more than read.
  checkSavedConnections(deps).catch((err: Error) => logger.warn({ err: err.message }, 'could not list connections to check their privileges'));
});
server.once('error', listenFailed(env.SLUICE_HOST, 'SLUICE_PORT', env.SLUICE_PORT));
// SLUICE_MCP_PORT: the same app, answering only /mcp (http/mcp-port.ts).
const mcpServer =
  env.SLUICE_MCP_PORT === undefined
    ? null
    : serve({ fetch: mcpPortFetch(app.fetch), hostname: env.SLUICE_HOST, port: env.SLUICE_MCP_PORT }, (info) => {
        deps.ports!.mcp = info.port;
        logger.info({ host: info.address, mcp_port: info.port }, `MCP endpoint also on http://${env.SLUICE_HOST}:${info.port}/mcp`);
      });
mcpServer?.once('error', listenFailed(env.SLUICE_HOST, 'SLUICE_MCP_PORT', env.SLUICE_MCP_PORT!));

/** An open server (no server key, no scoped key, no administrator: the access directory's rule) says so: anyone who reaches it may run queries and manage it. */
async function warnIfOpen(): Promise<void> {
  if (env.SLUICE_API_KEY) return;
  const access = await readSnapshot(deps.store.db);
  if (access.hasKeys || access.hasAdministrators) return;
  logger.warn(
    `This server is open: no SLUICE_API_KEY, no API key and no administrator, so whoever reaches ${env.SLUICE_HOST} on SLUICE_PORT can run queries and manage it. Set SLUICE_API_KEY, or create an owner (POST /api/v1/administrators), before letting anyone else reach it.`,
  );
}

function listenFailed(host: string, variable: string, port: number) {
  return (err: NodeJS.ErrnoException) => {
    const address = `${host}:${port}`;
    const hint =
      err.code === 'EADDRINUSE'
        ? `${address} is already in use (EADDRINUSE): stop what listens there, or set ${variable} to a free port`
        : `cannot listen on ${address} (${err.code ?? err.message}): check SLUICE_HOST and ${variable}`;
    logger.fatal(hint);
    process.exit(1);
  };
}

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  server.close();
  mcpServer?.close();
  await auditDelivery.stop().catch(() => {});
  stopSweepingResults();
  await resultRunner(deps).stop(ORIGIN_STOPPED).catch(() => {});
  await opened.close();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
