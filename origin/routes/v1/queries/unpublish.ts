import { IF_MATCH } from '../../../services/discovery/operations.ts';
import { unpublishFields } from '../../../services/queries/fields.ts';
import { unpublishQuery } from '../../../services/queries/unpublish.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/** POST /api/v1/queries/{name}/unpublish, no body: nothing serves, every version is kept; `If-Match`. */
export const unpublish = defineRoute({
  method: 'post',
  path: '/:name/unpublish',
  id: 'unpublishQuery',
  summary: 'Unpublish the query; every version is kept',
  body: unpublishFields,
  emptyBody: 'optional',
  parameters: [IF_MATCH],
  handler: async (c) => {
    const { query, etag } = await unpublishQuery(c.get('deps'), c.get('caller'), c.req.param('name'), {
      workspace: listedWorkspace(c),
      ifMatch: c.req.header('if-match'),
    });
    c.header('ETag', etag);
    return c.json(query);
  },
});
