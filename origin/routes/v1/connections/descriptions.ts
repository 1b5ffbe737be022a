import type { Hono } from 'hono';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { assertNotManaged } from '../../../services/config/managed.ts';
import { findConnection } from '../../../services/connections/lookup.ts';
import { patchFields } from '../../../services/descriptions/fields.ts';
import { importDescriptions } from '../../../services/descriptions/import.ts';
import { descriptionsOf } from '../../../services/descriptions/read.ts';
import { updateDescriptions } from '../../../services/descriptions/update.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/**
 * GET and PATCH /api/v1/connections/{name}/descriptions (`{connection, notes, items}`),
 * POST .../descriptions/import: the database's own comments. Under
 * SLUICE_CONFIG_LOCKED, descriptions a configuration file manages (and those
 * of a managed connection, refused by the router) answer 409 `config_managed`.
 */
export function registerDescriptions(api: Hono<AppEnv>): void {
  api.get('/:name/descriptions', async (c) => {
    const db = c.get('deps').store.db;
    return c.json(await descriptionsOf(db, await findConnection(db, c.req.param('name'), { workspace: listedWorkspace(c) })));
  });

  api.patch('/:name/descriptions', async (c) => {
    const input = await readBody(c, patchFields);
    await assertNotManaged(c.get('deps'), 'descriptions', c.req.param('name'));
    return c.json(await updateDescriptions(c.get('deps'), c.get('caller'), c.req.param('name'), input, { workspace: listedWorkspace(c) }));
  });

  api.post('/:name/descriptions/import', async (c) => {
    await assertNotManaged(c.get('deps'), 'descriptions', c.req.param('name'));
    return c.json(await importDescriptions(c.get('deps'), c.get('caller'), c.req.param('name'), { workspace: listedWorkspace(c) }));
  });
}
