import { IF_MATCH } from '../../../services/discovery/operations.ts';
import { addVersion } from '../../../services/queries/add-version.ts';
import { versionFields } from '../../../services/queries/fields.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { CREATED, defineRoute } from '../contract.ts';
import { versionPath } from './paths.ts';

/** POST /api/v1/queries/{name}/versions: 201 with the query; a draft unless `publish` is true; `If-Match`. */
export const addVersionRoute = defineRoute({
  method: 'post',
  path: '/:name/versions',
  id: 'addQueryVersion',
  summary: 'Add a version (a draft unless publish is true)',
  body: versionFields,
  parameters: [IF_MATCH],
  responses: CREATED,
  handler: async (c, input) => {
    const { query, etag, version } = await addVersion(c.get('deps'), c.get('caller'), c.req.param('name'), input, {
      workspace: listedWorkspace(c),
      ifMatch: c.req.header('if-match'),
    });
    c.header('ETag', etag);
    c.header('Location', versionPath(query.name, version));
    return c.json(query, 201);
  },
});
