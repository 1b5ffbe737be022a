import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { applyConfig } from '../../../services/config/index.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { flagParam, readConfigBody } from './file-body.ts';

/**
 * POST /api/v1/config/apply (`prune=true`, `dry_run=true`): the plan, with
 * `applied` true once committed; 400 `invalid_config` listing every problem,
 * and nothing changed.
 */
export function registerApply(api: Hono<AppEnv>): void {
  api.post('/apply', async (c) => {
    const { file, sha256 } = await readConfigBody(c);
    const options = { workspace: listedWorkspace(c), prune: flagParam(c, 'prune'), dryRun: flagParam(c, 'dry_run'), sha256 };
    return c.json(await applyConfig(c.get('deps'), c.get('caller'), file, options));
  });
}
