import { IF_MATCH } from '../../../services/discovery/operations.ts';
import { cacheTtlFields } from '../../../services/queries/fields.ts';
import { setCacheTtl } from '../../../services/queries/set-cache-ttl.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';
import { versionParam } from './paths.ts';

/** PATCH /api/v1/queries/{name}/versions/{n} `{cache_ttl}`: in place, not a new version; `If-Match`. */
export const updateVersion = defineRoute({
  method: 'patch',
  path: '/:name/versions/:version',
  id: 'setQueryVersionCacheTtl',
  summary: 'Change the cache_ttl of a version in place',
  body: cacheTtlFields,
  parameters: [IF_MATCH],
  handler: async (c, { cache_ttl }) => {
    const { version, etag } = await setCacheTtl(c.get('deps'), c.get('caller'), c.req.param('name'), versionParam(c), cache_ttl, {
      workspace: listedWorkspace(c),
      ifMatch: c.req.header('if-match'),
    });
    c.header('ETag', etag);
    return c.json(version);
  },
});
