import { parameterValues } from '../../../services/queries/parameter-values.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';
import { versionParam } from './paths.ts';

/** GET /api/v1/queries/{name}/versions/{n}/parameters/{param}/values: a parameter's allowed values, ascending (`?refresh=true` reads them now). */
export const readParameterValues = defineRoute({
  method: 'get',
  path: '/:name/versions/:version/parameters/:param/values',
  id: 'getParameterValues',
  summary: "Read a parameter's listed values",
  handler: async (c) => {
    const refresh = c.req.query('refresh') === 'true';
    return c.json(await parameterValues(c.get('deps'), c.req.param('name'), versionParam(c), c.req.param('param'), { workspace: listedWorkspace(c), refresh }));
  },
});
