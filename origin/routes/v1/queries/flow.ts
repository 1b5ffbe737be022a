import { queryFlow } from '../../../services/queries/flow.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';
import { versionParam } from './paths.ts';

/**
 * GET /api/v1/queries/{name}/versions/{version}/flow: `{query, version,
 * dialect, tables, joins, formatted_sql}`, or `{query, version, error,
 * tables: []}` (still 200) when the version cannot be analysed. 404
 * `query_not_found` / `version_not_found`.
 */
export const flow = defineRoute({
  method: 'get',
  path: '/:name/versions/:version/flow',
  id: 'getQueryVersionFlow',
  summary: 'Tables and joins a version touches, and its formatted SQL',
  handler: async (c) => c.json(await queryFlow(c.get('deps'), c.req.param('name'), versionParam(c), { workspace: listedWorkspace(c) })),
});
