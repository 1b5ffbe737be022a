import type { Hono } from 'hono';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { renameCollection, renameFields } from '../../../services/collections/rename.ts';

/**
 * PATCH /api/v1/collections/{name} `{name: <new>, merge?: true}`: the queries,
 * keys and roles changed. 400 for a new name outside the rules, 404
 * `collection_not_found`, 409 `collection_exists` without `merge`. A
 * workspace-scoped call renames it in that workspace only.
 */
export function registerRename(api: Hono<AppEnv>): void {
  api.patch('/:name', async (c) => {
    const input = await readBody(c, renameFields);
    return c.json(await renameCollection(c.get('deps'), c.get('caller'), c.req.param('name'), input, { workspace: listedWorkspace(c) }));
  });
}
