import type { Hono } from 'hono';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { validateFields, validateQuery } from '../../../services/queries/validate.ts';

/**
 * POST /api/v1/queries/validate: a create body (`name` optional) checked
 * without saving or auditing. 200 `{valid, errors, dialect, parameters:
 * {declared, used, undeclared}, tables, tables_error, statement: {read,
 * keyword, refusal}}`, whatever the definition's problems; only a body of
 * the wrong shape (unknown field, wrong JSON type) is a 400.
 */
export function registerValidate(api: Hono<AppEnv>): void {
  api.post('/validate', async (c) => c.json(await validateQuery(c.get('deps'), await readBody(c, validateFields), c.get('workspace'))));
}
