import { and, asc, eq } from 'drizzle-orm';
import { invalidateAccess } from '../../access/directory.ts';
import { recordAudit } from '../../audit/record.ts';
import { SluiceError } from '../../errors.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import { adminTokens } from '../../store/schema/index.ts';
import { type IssueFields, tokenExpiry } from './fields.ts';
import { findAdministrator } from './lookup.ts';
import { type IssuedToken, insertToken } from './token-store.ts';
import { type TokenView, tokenView } from './view.ts';

export const tokenNotFound = (name: string, id: string) =>
  new SluiceError('token_not_found', `Administrator "${name}" has no token "${id}"`);

/** An administrator's tokens, oldest first; never their secrets. */
export async function listTokens(deps: AppDeps, name: string): Promise<TokenView[]> {
  const administrator = await findAdministrator(deps.store.db, name);
  const rows = await deps.store.db
    .select()
    .from(adminTokens)
    .where(eq(adminTokens.administratorId, administrator.id))
    .orderBy(asc(adminTokens.createdAt), asc(adminTokens.id));
  const now = Date.now();
  return rows.map((row) => tokenView(row, now));
}

/** Issues a token (`issue_token`): the secret `slc_adm_...` is in this answer only. */
export async function issueToken(deps: AppDeps, actor: Caller, name: string, input: IssueFields): Promise<IssuedToken> {
  const expiresAt = tokenExpiry(input.expires_at);
  return deps.store.db.transaction(async (tx) => {
    const administrator = await findAdministrator(tx, name);
    const token = await insertToken(tx, actor.name, administrator, { label: input.label ?? null, expiresAt });
    await invalidateAccess(tx);
    return token;
  });
}

/** Revokes one token (`revoke_token`): it fails on the next request. 404 `token_not_found` when it is not theirs. */
export async function revokeToken(deps: AppDeps, actor: Caller, name: string, id: string): Promise<TokenView> {
  return deps.store.db.transaction(async (tx) => {
    const administrator = await findAdministrator(tx, name);
    const [row] = await tx
      .delete(adminTokens)
      .where(and(eq(adminTokens.id, id), eq(adminTokens.administratorId, administrator.id)))
      .returning();
    if (!row) throw tokenNotFound(name, id);
    await recordAudit(tx, { actor: actor.name, action: 'revoke_token', target: name, workspace: null, changes: { id: row.id, label: row.label } });
    await invalidateAccess(tx);
    return tokenView(row);
  });
}
