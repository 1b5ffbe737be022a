import { assertNotManaged } from '../../../services/config/managed.ts';
import { findConnection } from '../../../services/connections/lookup.ts';
import { patchFields } from '../../../services/descriptions/fields.ts';
import { importDescriptions } from '../../../services/descriptions/import.ts';
import { descriptionsOf } from '../../../services/descriptions/read.ts';
import { updateDescriptions } from '../../../services/descriptions/update.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/*
 * GET and PATCH /api/v1/connections/{name}/descriptions (`{connection, notes, items}`),
 * POST .../descriptions/import: the database's own comments. Under
 * SLUICE_CONFIG_LOCKED, descriptions a configuration file manages (and those
 * of a managed connection, refused by the lock) answer 409 `config_managed`.
 */

export const readDescriptions = defineRoute({
  method: 'get',
  path: '/:name/descriptions',
  id: 'getConnectionDescriptions',
  summary: 'Descriptions of tables and columns, and the connection notes',
  handler: async (c) => {
    const db = c.get('deps').store.db;
    return c.json(await descriptionsOf(db, await findConnection(db, c.req.param('name'), { workspace: listedWorkspace(c) })));
  },
});

export const patchDescriptions = defineRoute({
  method: 'patch',
  path: '/:name/descriptions',
  id: 'updateConnectionDescriptions',
  summary: 'Set the items listed (an empty description removes one) and the notes',
  body: patchFields,
  handler: async (c, input) => {
    await assertNotManaged(c.get('deps'), 'descriptions', c.req.param('name'));
    return c.json(await updateDescriptions(c.get('deps'), c.get('caller'), c.req.param('name'), input, { workspace: listedWorkspace(c) }));
  },
});

export const importComments = defineRoute({
  method: 'post',
  path: '/:name/descriptions/import',
  id: 'importConnectionDescriptions',
  summary: "Copy the database's own table and column comments into the descriptions",
  handler: async (c) => {
    await assertNotManaged(c.get('deps'), 'descriptions', c.req.param('name'));
    return c.json(await importDescriptions(c.get('deps'), c.get('caller'), c.req.param('name'), { workspace: listedWorkspace(c) }));
  },
});
