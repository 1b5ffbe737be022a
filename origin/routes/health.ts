import { Hono } from 'hono';
import type { AppEnv } from '../http/context.ts';
import { currentUtcOffset, serverTimeZone } from '../time.ts';

export const health = new Hono<AppEnv>()
  // 200 even with the store down: the process answers, and restarting it would not bring the store back.
  .get('/health', (c) => {
    const storeUp = c.get('deps').storeAvailability.reachable;
    return c.json({
      status: storeUp ? 'ok' : 'degraded',
      version: c.get('deps').version,
      time_zone: serverTimeZone(),
      utc_offset: currentUtcOffset(),
      store: storeUp ? 'ok' : 'unreachable',
    });
  })
  // A newcomer's first request: a 401 there read as a broken install.
  .get('/', (c) =>
    c.json({
      name: 'Sluice',
      version: c.get('deps').version,
      links: { docs: '/docs', openapi: '/openapi.json', health: '/health' },
    }),
  );
