import { createQuery } from '../../../services/queries/create.ts';
import { createFields } from '../../../services/queries/fields.ts';
import { CREATED, defineRoute } from '../contract.ts';
import { queryPath } from './paths.ts';

/** POST /api/v1/queries: 201 with the query, its first version and an ETag; 409 `query_exists`; 400 with `errors`. */
export const create = defineRoute({
  method: 'post',
  path: '/',
  id: 'createQuery',
  summary: 'Create a saved query with its first version',
  body: createFields,
  responses: CREATED,
  handler: async (c, input) => {
    const { query, etag } = await createQuery(c.get('deps'), c.get('caller'), input, c.get('workspace'));
    c.header('ETag', etag);
    c.header('Location', queryPath(query.name));
    return c.json(query, 201);
  },
});
