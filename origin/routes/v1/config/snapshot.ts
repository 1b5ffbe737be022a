import { stringify } from 'yaml';
import { badRequest } from '../../../errors.ts';
import { APPLIED_KINDS, type AppliedKind, snapshotConfig } from '../../../services/config/index.ts';
import { queryParam } from '../../../services/discovery/operations.ts';
import { defineRoute } from '../contract.ts';
import { flag, flagParam } from './file-body.ts';

/**
 * GET /api/v1/config/export (`kinds=connections,queries`, `examples=true`):
 * the server's objects as a configuration file that applies back to the same
 * state, as JSON, or YAML with `Accept: application/yaml`. The spec's path
 * says export; in the code it is the configuration's snapshot (an export is
 * a delivery to a destination: docs/reference/source-map.md).
 */
export const snapshot = defineRoute({
  method: 'get',
  path: '/export',
  id: 'exportConfig',
  summary: 'The objects of the workspace as a configuration file (owners); YAML with Accept: application/yaml',
  access: 'config.apply',
  parameters: [queryParam('kinds', { type: 'string' }, `Comma-separated: ${APPLIED_KINDS.join(', ')}`), flag('examples', "Include the examples' connections and queries")],
  handler: async (c) => {
    const file = await snapshotConfig(c.get('deps'), { kinds: kindsParam(c.req.query('kinds')), workspace: c.get('workspace'), examples: flagParam(c, 'examples') });
    if (/\b(application|text)\/(x-)?yaml\b/i.test(c.req.header('accept') ?? '')) {
      return c.body(stringify(file), 200, { 'Content-Type': 'application/yaml; charset=utf-8' });
    }
    return c.json(file);
  },
});

function kindsParam(text: string | undefined): AppliedKind[] | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const kinds = text.split(',').map((k) => k.trim());
  const unknown = kinds.filter((k) => !(APPLIED_KINDS as readonly string[]).includes(k));
  if (unknown.length > 0) throw badRequest(`kinds: unknown ${unknown.join(', ')}; one or more of ${APPLIED_KINDS.join(', ')}`, { errors: { kinds: `unknown: ${unknown.join(', ')}` } });
  return kinds as AppliedKind[];
}
