import { Hono } from 'hono';
import { clientRateLimit, keyRateLimit } from './http/rate-limit.ts';
import { edgeAssertion } from './http/edge-assertion.ts';
import { pushEdgeChanges } from './http/edge-push.ts';
import { identifyCaller } from './http/caller.ts';
import { clientAddress } from './http/client-address.ts';
import type { AppDeps } from './deps.ts';
import type { AppEnv } from './http/context.ts';
import { cors } from './http/cors.ts';
import { onError, onNotFound } from './http/error-handler.ts';
import { refuseNul } from './http/refuse-nul.ts';
import { storeGate } from './http/store-gate.ts';
import { requestId } from './http/request-id.ts';
import { accessLog } from './http/access-log.ts';
import { traceRequest } from './http/trace-request.ts';
import { catalogRoute } from './routes/catalog.ts';
import { consoleRoute } from './routes/console.ts';
import { connectionsPublic } from './routes/connection-browse.ts';
import { docsRoute } from './routes/docs.ts';
import { eventsRoute } from './routes/events.ts';
import { executeMongo } from './routes/execute-mongo.ts';
import { executeSql } from './routes/execute-sql.ts';
import { health } from './routes/health.ts';
import { mcpRoute } from './routes/mcp/index.ts';
import { metricsRoute } from './routes/metrics.ts';
import { openApiRoute } from './routes/openapi.ts';
import { resultChunkRoute, resultsRoute } from './routes/results.ts';
import { runQuery } from './routes/run-saved-query.ts';
import { actingWorkspace, routingPath } from './routes/v1/acting-workspace.ts';
import { mountManagementApi } from './routes/v1/index.ts';

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
  app.use(traceRequest);
  app.use(edgeAssertion);
  app.use(accessLog);
  app.use(cors);
  app.use(clientRateLimit);
  app.use(refuseNul);
  app.route('/', health);
  app.route('/', metricsRoute);
  app.use(storeGate);
  // A chunk link's signature is its credential: no key is asked for.
  app.route('/', resultChunkRoute);
  app.use(identifyCaller);
  app.use('/api/v1/*', pushEdgeChanges);
  app.use('/api/v1/*', actingWorkspace);
  app.use(keyRateLimit);
  app.route('/', executeSql);
  app.route('/', executeMongo);
  app.route('/', runQuery);
  app.route('/', resultsRoute);
  app.route('/', connectionsPublic);
  app.route('/', catalogRoute);
  app.route('/', openApiRoute);
  app.route('/', docsRoute);
  app.route('/', consoleRoute);
  app.route('/', eventsRoute);
  app.route('/', mcpRoute);
  mountManagementApi(app);
  app.onError(onError);
  app.notFound(onNotFound);
  return app;
}
