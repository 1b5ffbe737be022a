import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { diffConfig } from '../../../services/config/index.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { flagParam, readConfigBody } from './file-body.ts';

/** POST /api/v1/config/diff (`prune=true`): what applying the file would change, per kind; 400 `invalid_config` listing every problem. */
export function registerDiff(api: Hono<AppEnv>): void {
  api.post('/diff', async (c) => {
    const { file, sha256 } = await readConfigBody(c);
    return c.json(await diffConfig(c.get('deps'), c.get('caller'), file, { workspace: listedWorkspace(c), prune: flagParam(c, 'prune'), sha256 }));
  });
}
