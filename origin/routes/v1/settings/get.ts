import { listSettings } from '../../../services/settings/list.ts';
import { defineRoute } from '../contract.ts';

/** GET /api/v1/settings: `{sections: [{id, title, description, rows}]}` of every variable the server reads. */
export const read = defineRoute({
  method: 'get',
  path: '/',
  id: 'getSettings',
  summary: 'Every environment variable the server reads, by section; secrets only as configured',
  handler: (c) => c.json(listSettings(c.get('deps').env, process.env)),
});
