import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { queryFlow } from '../../../services/queries/flow.ts';
import { versionParam } from './paths.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/**
 * GET /api/v1/queries/{name}/versions/{version}/flow: `{query, version,
 * dialect, tables, joins, formatted_sql}`, or `{query, version, error,
 * tables: []}` (still 200) when the version cannot be analysed. 404
 * `query_not_found` / `version_not_found`.
 */
export function registerFlow(api: Hono<AppEnv>): void {
  api.get('/:name/versions/:version/flow', async (c) =>
    c.json(await queryFlow(c.get('deps'), c.req.param('name'), versionParam(c), { workspace: listedWorkspace(c) })),
  );
}
