import { createMiddleware } from 'hono/factory';
import { formatTraceparent } from '../../shared/tracing/trace-context.ts';
import { SluiceError } from '../errors.ts';
import { endpointOf } from '../observability/endpoint.ts';
import type { AppEnv } from './context.ts';
import { requestHeader } from './request-header.ts';

/**
 * A request's server span when tracing is on (docs/reference/tracing.md):
 * it continues the client's `traceparent` (or starts a trace), is named
 * for its route template (`GET /q/:name`, never the raw path with its
 * names), and is answered in `traceresponse`. Like the access line, a
 * streamed body's span ends when its headers go out; its query span ends
 * with its last row. A 5xx marks it failed; any error answer names its
 * code in `error.type`.
 */
export const traceRequest = createMiddleware<AppEnv>(async (c, next) => {
  const { tracing } = c.get('deps');
  if (!tracing.on) return next();
  const span = tracing.startRequest((name) => requestHeader(c, name), {
    'http.request.method': c.req.method,
    'url.scheme': c.get('clientScheme'),
    'client.address': c.get('clientIp'),
    'sluice.request_id': c.get('requestId'),
  });
  c.set('span', span);
  const traceresponse = formatTraceparent(span);
  c.header('traceresponse', traceresponse);
  try {
    await next();
  } finally {
    const route = endpointOf(c);
    const status = c.res.status;
    span.rename(`${c.req.method} ${route}`);
    span.set({ 'http.route': route, 'http.response.status_code': status, 'sluice.key': c.get('caller')?.name });
    const code = c.error instanceof SluiceError ? c.error.code : status >= 500 ? 'internal_error' : undefined;
    if (status >= 500) span.fail(code!);
    else if (code) span.set({ 'error.type': code });
    c.res.headers.set('traceresponse', traceresponse);
    span.end();
  }
});
