import { IF_MATCH } from '../../../services/discovery/operations.ts';
import { publishFields } from '../../../services/queries/fields.ts';
import { publishVersion } from '../../../services/queries/publish.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/** POST /api/v1/queries/{name}/publish `{version: n}`: a draft or a previous version (a rollback); `If-Match`. */
export const publish = defineRoute({
  method: 'post',
  path: '/:name/publish',
  id: 'publishQueryVersion',
  summary: 'Publish a version (a rollback when older)',
  body: publishFields,
  parameters: [IF_MATCH],
  handler: async (c, { version }) => {
    const { query, etag } = await publishVersion(c.get('deps'), c.get('caller'), c.req.param('name'), version, {
      workspace: listedWorkspace(c),
      ifMatch: c.req.header('if-match'),
    });
    c.header('ETag', etag);
    return c.json(query);
  },
});
