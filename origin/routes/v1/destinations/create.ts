import { createDestination } from '../../../services/destinations/create.ts';
import { createFields } from '../../../services/destinations/fields.ts';
import { CREATED, defineRoute } from '../contract.ts';

/** POST /api/v1/destinations: 201 with the destination and its ETag; 409 `destination_exists`. */
export const create = defineRoute({
  method: 'post',
  path: '/',
  id: 'createDestination',
  summary: 'Create a destination',
  body: createFields,
  responses: CREATED,
  handler: async (c, input) => {
    const { destination, etag } = await createDestination(c.get('deps'), c.get('caller'), input, c.get('workspace'));
    c.header('ETag', etag);
    c.header('Location', `/api/v1/destinations/${encodeURIComponent(destination.name)}`);
    return c.json(destination, 201);
  },
});
