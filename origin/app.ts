import { Hono } from 'hono';
import { clientRateLimit, keyRateLimit } from './access/rate-limit/middleware.ts';
import { identifyCaller } from './http/caller.ts';
import { clientAddress } from './http/client-address.ts';
import type { AppDeps, AppEnv } from './http/context.ts';
import { cors } from './http/cors.ts';
import { onError, onNotFound } from './http/error-handler.ts';
import { requestId } from './http/request-id.ts';
import { accessLog } from './observability/access-log.ts';
import { catalogRoute } from './routes/catalog.ts';
import { connectionsPublic } from './routes/connections-public.ts';
import { docsRoute } from './routes/docs.ts';
import { executeSql } from './routes/execute-sql.ts';
import { health } from './routes/health.ts';
import { openApiRoute } from './routes/openapi.ts';
import { runQuery } from './routes/run-query.ts';
import { actingWorkspace, routingPath } from './routes/v1/acting-workspace.ts';
import { administratorsApi } from './routes/v1/administrators/index.ts';
import { alertsApi } from './routes/v1/alerts/index.ts';
import { auditApi } from './routes/v1/audit/index.ts';
import { cacheApi } from './routes/v1/cache/index.ts';
import { collectionsApi } from './routes/v1/collections/index.ts';
import { connectionsApi } from './routes/v1/connections/index.ts';
import { historyApi } from './routes/v1/history/index.ts';
import { meApi } from './routes/v1/me.ts';
import { queriesApi } from './routes/v1/queries/index.ts';
import { rekeyApi } from './routes/v1/rekey/index.ts';
import { workspacesApi } from './routes/v1/workspaces/index.ts';

/** Builds the origin's HTTP app from its dependencies; `main.ts` only reads env and listens. */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  // `/w/<workspace>/api/v1/...` is routed as `/api/v1/...` (routes/v1/acting-workspace.ts).
  const app = new Hono<AppEnv>({ getPath: routingPath });
  app.use(async (c, next) => {
    c.set('deps', deps);
    await next();
  });
  app.use(requestId);
  app.use(clientAddress);
  app.use(accessLog);
  app.use(cors);
  app.use(clientRateLimit);
  app.route('/', health);
  app.use(identifyCaller);
  app.use('/api/v1/*', actingWorkspace);
  app.use(keyRateLimit);
  app.route('/', executeSql);
  app.route('/', runQuery);
  app.route('/', connectionsPublic);
  app.route('/', catalogRoute);
  app.route('/', openApiRoute);
  app.route('/', docsRoute);
  app.route('/api/v1/cache', cacheApi);
  app.route('/api/v1/collections', collectionsApi);
  app.route('/api/v1/connections', connectionsApi);
  app.route('/api/v1/history', historyApi);
  app.route('/api/v1/queries', queriesApi);
  app.route('/api/v1/audit', auditApi);
  app.route('/api/v1/alerts', alertsApi);
  app.route('/api/v1/settings/rekey', rekeyApi);
  app.route('/api/v1/administrators', administratorsApi);
  app.route('/api/v1/workspaces', workspacesApi);
  app.route('/api/v1/me', meApi);
  app.onError(onError);
  app.notFound(onNotFound);
  return app;
}
