import { createHash, timingSafeEqual } from 'node:crypto';
import { Hono } from 'hono';
import { SluiceError } from '../errors.ts';
import { bearer } from '../http/caller.ts';
import type { AppEnv } from '../http/context.ts';
import { renderMetrics } from '../observability/metrics.ts';

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * GET /metrics: the Prometheus text exposition, or OpenMetrics (with trace
 * exemplars) to a scraper whose `Accept` names it. Public (spec, Authentication
 * 2) unless SLUICE_METRICS_TOKEN is set; then only `Authorization: Bearer
 * <token>` gets it, compared as SHA-256 digests in constant time. The API
 * keys do not open it: a scraper needs no power over the data.
 */
export const metricsRoute = new Hono<AppEnv>().get('/metrics', async (c) => {
  const deps = c.get('deps');
  const token = deps.env.SLUICE_METRICS_TOKEN;
  if (token !== undefined) {
    const presented = bearer(c.req.header('authorization'));
    if (presented === undefined || !timingSafeEqual(digest(presented), digest(token))) {
      c.header('WWW-Authenticate', 'Bearer realm="metrics"');
      throw new SluiceError('unauthorized', 'Metrics need Authorization: Bearer <SLUICE_METRICS_TOKEN>');
    }
  }
  const openMetrics = /application\/openmetrics-text/i.test(c.req.header('accept') ?? '');
  const { contentType, body } = await renderMetrics({ idleConnections: deps.drivers.idleCount(), streamPipes: deps.drivers.pipeCount() }, { openMetrics });
  return c.body(body, 200, { 'Content-Type': contentType });
});
