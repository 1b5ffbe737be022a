import { eq } from 'drizzle-orm';
import { generateSecret, hashSecret } from '../../../shared/access/secret.ts';
import { invalidateAccess } from '../../access/directory.ts';
import { recordAudit } from '../../audit/record.ts';
import { SluiceError } from '../../errors.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import { apiKeys } from '../../store/schema/index.ts';
import type { KeyWithSecret } from './create.ts';
import { DEFAULT_GRACE_MINUTES, type RotateFields } from './fields.ts';
import { assertIfMatch } from '../if-match.ts';
import { assertSecretFree, findKey, keyEtag } from './lookup.ts';
import { type KeyRead, keyRead, rotationPending } from './view.ts';

type KeyOptions = { workspace?: string; ifMatch?: string };

/**
 * Rotates a key's secret: the `rotate_api_key` change. The new secret is
 * returned once; the old one keeps working, with the same grants, limits,
 * addresses and expiry, for `grace_minutes` (default 60, at most 10080; 0
 * ends it at once). 409 `key_rotation_pending` while an earlier previous
 * secret is still in its grace. `previous_last_used_at` starts empty, so it
 * tells whether anything still uses the old secret.
 */
export async function rotateKey(deps: AppDeps, actor: Caller, name: string, input: RotateFields, options: KeyOptions = {}): Promise<KeyWithSecret> {
  const secret = generateSecret();
  const { key, etag } = await rotateKeyToHash(deps, actor, name, input, { ...options, secretHash: await hashSecret(secret) });
  return { key: { ...key, secret }, etag };
}

/**
 * The same change to a secret the server never sees, only its SHA-256 (a
 * configuration file's new `secret_sha256`). 409 `key_secret_taken` when
 * another caller holds that secret.
 */
export async function rotateKeyToHash(
  deps: AppDeps,
  actor: Caller,
  name: string,
  input: RotateFields,
  { workspace, ifMatch, secretHash }: KeyOptions & { secretHash: string },
): Promise<KeyRead> {
  const graceMinutes = input.grace_minutes ?? DEFAULT_GRACE_MINUTES;
  const row = await deps.store.db.transaction(async (tx) => {
    const current = await findKey(tx, name, { workspace, forUpdate: true });
    assertIfMatch(ifMatch, keyEtag(current), `API key "${name}"`);
    if (rotationPending(current)) {
      throw new SluiceError(
        'key_rotation_pending',
        `API key "${name}" has a previous secret valid until ${current.previousExpiresAt!.toISOString()}: end it (DELETE .../previous) or wait before rotating again`,
      );
    }
    await assertSecretFree(tx, secretHash, { serverKey: deps.env.SLUICE_API_KEY, exceptKeyId: current.id });
    const previousExpiresAt = graceMinutes > 0 ? new Date(Date.now() + graceMinutes * 60_000) : null;
    const [updated] = await tx
      .update(apiKeys)
      .set({
        secretHash,
        previousSecretHash: previousExpiresAt ? current.secretHash : null,
        previousExpiresAt,
        previousLastUsedAt: null,
        revision: current.revision + 1,
        updatedAt: new Date(),
      })
      .where(eq(apiKeys.id, current.id))
      .returning();
    await recordAudit(tx, {
      actor: actor.name,
      action: 'rotate_api_key',
      target: name,
      workspace: current.workspace,
      changes: { grace_minutes: graceMinutes, previous_expires_at: previousExpiresAt?.toISOString() ?? null },
    });
    await invalidateAccess(tx);
    return updated;
  });
  return keyRead(deps, row);
}

/**
 * Ends a rotation's previous secret now: the `end_previous_secret` change.
 * 404 `previous_secret_not_found` when no previous secret is in its grace.
 */
export async function endPreviousSecret(deps: AppDeps, actor: Caller, name: string, { workspace, ifMatch }: KeyOptions = {}): Promise<KeyRead> {
  const row = await deps.store.db.transaction(async (tx) => {
    const current = await findKey(tx, name, { workspace, forUpdate: true });
    assertIfMatch(ifMatch, keyEtag(current), `API key "${name}"`);
    if (!rotationPending(current)) {
      throw new SluiceError('previous_secret_not_found', `API key "${name}" has no previous secret in its grace period`);
    }
    const [updated] = await tx
      .update(apiKeys)
      .set({ previousSecretHash: null, previousExpiresAt: null, previousLastUsedAt: null, revision: current.revision + 1, updatedAt: new Date() })
      .where(eq(apiKeys.id, current.id))
      .returning();
    await recordAudit(tx, {
      actor: actor.name,
      action: 'end_previous_secret',
      target: name,
      workspace: current.workspace,
      changes: { previous_expires_at: { from: current.previousExpiresAt!.toISOString(), to: null } },
    });
    await invalidateAccess(tx);
    return updated;
  });
  return keyRead(deps, row);
}
