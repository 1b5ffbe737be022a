import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { listSettings } from '../../../services/settings/list.ts';

/** GET /api/v1/settings: `{sections: [{id, title, description, rows}]}` of every variable the server reads. */
export function registerGet(api: Hono<AppEnv>): void {
  api.get('/', (c) => c.json(listSettings(c.get('deps').env, process.env)));
}
