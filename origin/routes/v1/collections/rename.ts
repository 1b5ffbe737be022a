import { renameCollection, renameFields } from '../../../services/collections/rename.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/**
 * PATCH /api/v1/collections/{name} `{name: <new>, merge?: true}`: the queries,
 * keys and roles changed. 400 for a new name outside the rules, 404
 * `collection_not_found`, 409 `collection_exists` without `merge`. A
 * workspace-scoped call renames it in that workspace only.
 */
export const rename = defineRoute({
  method: 'patch',
  path: '/:name',
  id: 'renameCollection',
  summary: 'Rename a collection (merge: true into an existing one)',
  body: renameFields,
  handler: async (c, input) => c.json(await renameCollection(c.get('deps'), c.get('caller'), c.req.param('name'), input, { workspace: listedWorkspace(c) })),
});
