import type { Context, Hono } from 'hono';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { issueFields } from '../../../services/administrators/fields.ts';
import { issueToken, listTokens, revokeToken } from '../../../services/administrators/tokens.ts';
import { assertAdministrator, assertCapability } from '../require-capability.ts';

/** Everyone manages their own tokens; another administrator's need `administrators.write` (an owner). */
function assertManagesTokensOf(c: Context<AppEnv>, name: string): void {
  const caller = c.get('caller');
  assertAdministrator(caller);
  if (caller.via === 'token' && caller.administrator?.name === name) return;
  assertCapability(caller, c.get('workspace'), 'administrators.write');
}

/**
 * GET, POST `/api/v1/administrators/{name}/tokens` (list; issue `{label,
 * expires_at}`: 201 with the secret, once, under `no-store`) and DELETE
 * `.../tokens/{id}` (revoke; 404 `token_not_found`).
 */
export function registerTokens(api: Hono<AppEnv>): void {
  api.get('/:name/tokens', async (c) => {
    const name = c.req.param('name');
    assertManagesTokensOf(c, name);
    return c.json({ tokens: await listTokens(c.get('deps'), name) });
  });

  api.post('/:name/tokens', async (c) => {
    const name = c.req.param('name');
    assertManagesTokensOf(c, name);
    const input = await readBody(c, issueFields, { optional: true });
    const token = await issueToken(c.get('deps'), c.get('caller'), name, input);
    c.header('Cache-Control', 'no-store');
    return c.json(token, 201);
  });

  api.delete('/:name/tokens/:id', async (c) => {
    const name = c.req.param('name');
    assertManagesTokensOf(c, name);
    return c.json(await revokeToken(c.get('deps'), c.get('caller'), name, c.req.param('id')));
  });
}
