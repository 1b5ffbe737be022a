import { createExport } from '../../../services/exports/create.ts';
import { createFields } from '../../../services/exports/fields.ts';
import { CREATED, defineRoute } from '../contract.ts';

/** POST /api/v1/exports: 201 with the export and its ETag; 409 `export_exists`; 400 naming every problem with its destination, query, params and path. */
export const create = defineRoute({
  method: 'post',
  path: '/',
  id: 'createExport',
  summary: 'Create an export (checked against its destination and published query)',
  body: createFields,
  responses: CREATED,
  handler: async (c, input) => {
    const { export: created, etag } = await createExport(c.get('deps'), c.get('caller'), input, c.get('workspace'));
    c.header('ETag', etag);
    c.header('Location', `/api/v1/exports/${encodeURIComponent(created.name)}`);
    return c.json(created, 201);
  },
});
