import { MIN_SECRET_LENGTH } from '../../shared/edge/protocol.ts';
import { startLocalEdge } from './miniflare.ts';

/**
 * `npm run edge`: the edge Worker on workerd (Miniflare) in front of a local
 * origin. SLUICE_ORIGIN_URL (default http://127.0.0.1:8080) and
 * SLUICE_EDGE_SECRET (the origin's) as for a deploy; SLUICE_EDGE_HOST and
 * SLUICE_EDGE_PORT (default 127.0.0.1:8787) where it listens. Start the
 * origin with SLUICE_EDGE_URL pointing here; it pushes its replica. The
 * OpenTelemetry variables set here (OTEL_*) become the Worker's, as they
 * would be set for a deploy (docs/reference/tracing.md).
 */
const secret = process.env.SLUICE_EDGE_SECRET ?? '';
if (secret.length < MIN_SECRET_LENGTH) {
  console.error(`SLUICE_EDGE_SECRET must be set (${MIN_SECRET_LENGTH}+ characters), the same as the origin's`);
  process.exit(1);
}
const port = Number(process.env.SLUICE_EDGE_PORT ?? 8787);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error('SLUICE_EDGE_PORT must be a port number');
  process.exit(1);
}
const originUrl = process.env.SLUICE_ORIGIN_URL ?? 'http://127.0.0.1:8080';
const tracing = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[0].startsWith('OTEL_') && entry[1] !== undefined));
const edge = await startLocalEdge({ originUrl, secret, host: process.env.SLUICE_EDGE_HOST ?? '127.0.0.1', port, bindings: tracing });
console.log(`Sluice edge listening on ${edge.url}, in front of ${originUrl}`);

const stop = async () => {
  await edge.stop();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
