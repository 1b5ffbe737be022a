import { IF_MATCH } from '../../../services/discovery/operations.ts';
import { moveFields } from '../../../services/queries/fields.ts';
import { moveQuery } from '../../../services/queries/move.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/** PATCH /api/v1/queries/{name} `{collection: <name or null>}`: not a new version; `If-Match`. */
export const move = defineRoute({
  method: 'patch',
  path: '/:name',
  id: 'moveQuery',
  summary: 'Move a query to a collection (or none)',
  body: moveFields,
  parameters: [IF_MATCH],
  handler: async (c, { collection }) => {
    const { query, etag } = await moveQuery(c.get('deps'), c.get('caller'), c.req.param('name'), collection, {
      workspace: listedWorkspace(c),
      ifMatch: c.req.header('if-match'),
    });
    c.header('ETag', etag);
    return c.json(query);
  },
});
