import type { Context } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { issueFields } from '../../../services/administrators/fields.ts';
import { issueToken, listTokens, revokeToken } from '../../../services/administrators/tokens.ts';
import { CREATED, defineRoute } from '../contract.ts';
import { assertAdministrator, assertCapability } from '../require-capability.ts';

/** Everyone manages their own tokens; another administrator's need `administrators.write` (an owner). */
function managesTokensOf(c: Context<AppEnv>): void {
  const caller = c.get('caller');
  assertAdministrator(caller);
  if (caller.via === 'token' && caller.administrator?.name === c.req.param('name')) return;
  assertCapability(caller, c.get('workspace'), 'administrators.write');
}

/*
 * GET, POST `/api/v1/administrators/{name}/tokens` (list; issue `{label,
 * expires_at}`: 201 with the secret, once, under `no-store`) and DELETE
 * `.../tokens/{id}` (revoke; 404 `token_not_found`).
 */

export const listTokensRoute = defineRoute({
  method: 'get',
  path: '/:name/tokens',
  id: 'listAdministratorTokens',
  summary: 'Tokens (never secrets)',
  access: managesTokensOf,
  handler: async (c) => c.json({ tokens: await listTokens(c.get('deps'), c.req.param('name')) }),
});

export const issue = defineRoute({
  method: 'post',
  path: '/:name/tokens',
  id: 'issueAdministratorToken',
  summary: 'Issue a token; the secret is shown once',
  access: managesTokensOf,
  body: issueFields,
  emptyBody: 'optional',
  responses: CREATED,
  handler: async (c, input) => {
    const token = await issueToken(c.get('deps'), c.get('caller'), c.req.param('name'), input);
    c.header('Cache-Control', 'no-store');
    return c.json(token, 201);
  },
});

export const revoke = defineRoute({
  method: 'delete',
  path: '/:name/tokens/:id',
  id: 'revokeAdministratorToken',
  summary: 'Revoke one token',
  access: managesTokensOf,
  handler: async (c) => c.json(await revokeToken(c.get('deps'), c.get('caller'), c.req.param('name'), c.req.param('id'))),
});
