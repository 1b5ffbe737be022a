import { configFileSchema } from '../../../services/config/file.ts';
import { diffConfig } from '../../../services/config/index.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';
import { flag, flagParam, readConfigBody } from './file-body.ts';

/** POST /api/v1/config/diff (`prune=true`): what applying the file would change, per kind; 400 `invalid_config` listing every problem. */
export const diff = defineRoute({
  method: 'post',
  path: '/diff',
  id: 'diffConfig',
  summary: 'What applying a configuration file (JSON, or YAML as application/yaml) would change, per kind',
  access: 'config.read',
  document: configFileSchema,
  parameters: [flag('prune', 'Include deletes of managed objects the file lacks')],
  handler: async (c) => {
    const { file, sha256, read } = await readConfigBody(c);
    return c.json(await diffConfig(c.get('deps'), c.get('caller'), file, { workspace: listedWorkspace(c), prune: flagParam(c, 'prune'), sha256, read }));
  },
});
