import { configFileSchema } from '../../../services/config/file.ts';
import { applyConfig } from '../../../services/config/index.ts';
import { requestSpanOf } from '../../../http/request-scope.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';
import { flag, flagParam, readConfigBody } from './file-body.ts';

/**
 * POST /api/v1/config/apply (`prune=true`, `dry_run=true`): the plan, with
 * `applied` true once committed; 400 `invalid_config` listing every problem,
 * and nothing changed.
 */
export const apply = defineRoute({
  method: 'post',
  path: '/apply',
  id: 'applyConfig',
  summary: 'Apply a configuration file in one transaction, all or nothing (owners); 400 invalid_config lists every problem',
  access: 'config.apply',
  document: configFileSchema,
  parameters: [flag('prune', 'Delete managed objects the file lacks, in the sections it has'), flag('dry_run', 'Roll back: only the plan')],
  handler: async (c) => {
    const { file, sha256, read } = await readConfigBody(c);
    const options = { workspace: listedWorkspace(c), prune: flagParam(c, 'prune'), dryRun: flagParam(c, 'dry_run'), sha256, read, parent: requestSpanOf(c) };
    return c.json(await applyConfig(c.get('deps'), c.get('caller'), file, options));
  },
});
