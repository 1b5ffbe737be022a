import { Hono } from 'hono';
import type { AppEnv } from '../http/context.ts';
import { currentUtcOffset, serverTimeZone } from '../time.ts';

export const health = new Hono<AppEnv>()
  .get('/health', (c) =>
    c.json({
      status: 'ok',
      version: c.get('deps').version,
      time_zone: serverTimeZone(),
      utc_offset: currentUtcOffset(),
    }),
  )
  // A newcomer's first request: a 401 there read as a broken install.
  .get('/', (c) =>
    c.json({
      name: 'Sluice',
      version: c.get('deps').version,
      links: { docs: '/docs', openapi: '/openapi.json', health: '/health' },
    }),
  );
