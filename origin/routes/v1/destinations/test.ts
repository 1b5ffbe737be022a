import { probeFields, savedProbeFields } from '../../../services/destinations/fields.ts';
import { testDestination } from '../../../services/destinations/test.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { defineRoute } from '../contract.ts';

/*
 * POST /api/v1/destinations/test (unsaved fields, or `{name}`) and
 * POST /api/v1/destinations/{name}/test: a probe object written and removed;
 * `{ok, duration_ms}` or 502 `connection_failed`. A probe changes nothing.
 */

export const probe = defineRoute({
  method: 'post',
  path: '/test',
  id: 'testDestination',
  summary: 'Write and remove a probe object for a saved destination ({name}) or unsaved fields',
  body: probeFields,
  handler: async (c, input) => c.json(await testDestination(c.get('deps'), c.get('caller'), input, { workspace: listedWorkspace(c) })),
});

export const probeSaved = defineRoute({
  method: 'post',
  path: '/:name/test',
  id: 'testSavedDestination',
  summary: 'Write and remove a probe object under the saved destination',
  body: savedProbeFields,
  emptyBody: 'optional',
  locked: false,
  handler: async (c) => c.json(await testDestination(c.get('deps'), c.get('caller'), { name: c.req.param('name') }, { workspace: listedWorkspace(c) })),
});
