import { Hono } from 'hono';
import { clientRateLimit, keyRateLimit } from './access/rate-limit/middleware.ts';
import { identifyCaller } from './http/caller.ts';
import type { AppDeps, AppEnv } from './http/context.ts';
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
import { cacheApi } from './routes/v1/cache/index.ts';
import { collectionsApi } from './routes/v1/collections/index.ts';
import { connectionsApi } from './routes/v1/connections/index.ts';
import { historyApi } from './routes/v1/history/index.ts';
import { queriesApi } from './routes/v1/queries/index.ts';

/** Builds the origin's HTTP app from its dependencies; `main.ts` only reads env and listens. */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    c.set('deps', deps);
    await next();
  });
  app.use(requestId);
  app.use(accessLog);
  app.use(clientRateLimit);
  app.route('/', health);
  app.use(identifyCaller);
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
  app.onError(onError);
  app.notFound(onNotFound);
  return app;
}
