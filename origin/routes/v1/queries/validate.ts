import { validateFields, validateQuery } from '../../../services/queries/validate.ts';
import { defineRoute } from '../contract.ts';

/**
 * POST /api/v1/queries/validate: a create body (`name` optional) checked
 * without saving or auditing. 200 `{valid, errors, dialect, parameters:
 * {declared, used, undeclared}, tables, tables_error, statement: {read,
 * keyword, refusal}}`, whatever the definition's problems; only a body of
 * the wrong shape (unknown field, wrong JSON type) is a 400. It only reads.
 */
export const validate = defineRoute({
  method: 'post',
  path: '/validate',
  id: 'validateQuery',
  summary: 'Check a definition without saving it',
  access: 'queries.read',
  body: validateFields,
  handler: async (c, input) => c.json(await validateQuery(c.get('deps'), input, c.get('workspace'), c.get('caller'))),
});
