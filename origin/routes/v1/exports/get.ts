import { getExport } from '../../../services/exports/list.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/** GET /api/v1/exports/{name} with its ETag. */
export const read = defineRoute({
  method: 'get',
  path: '/:name',
  id: 'getExport',
  summary: 'Read an export, with its ETag',
  handler: async (c) => {
    const { export: found, etag } = await getExport(c.get('deps'), c.req.param('name'), { workspace: listedWorkspace(c) });
    c.header('ETag', etag);
    return c.json(found);
  },
});
