import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { recordAudit } from '../audit/record.ts';
import { SluiceError } from '../errors.ts';
import type { AppDeps } from '../deps.ts';
import type { Caller } from '../access/caller.ts';
import { type SecretsReport, type StoredSecret, secretsReport, storedSecrets } from './inventory.ts';
import { secretKeyring } from './keyring.ts';

/** POST /api/v1/settings/rekey. An empty body runs the rekey. */
export const rekeyFields = z.strictObject({ check: z.boolean().optional() });
export type RekeyFields = z.infer<typeof rekeyFields>;

export type RekeyResult = SecretsReport & { rekeyed?: number };

/**
 * `{check: true}` reports where every stored password stands. Otherwise the
 * `rekey` change: every literal and every ciphertext under an older key is
 * encrypted under the first key of SLUICE_SECRET_KEY, in one transaction with
 * the rows locked. All or nothing: when any value cannot be decrypted,
 * nothing is written and the answer is 409 `rekey_blocked` naming them. The
 * audit entry holds counts only; a rekey with nothing to do writes nothing.
 */
export async function rekeySecrets(deps: AppDeps, actor: Caller, input: RekeyFields): Promise<RekeyResult> {
  const keyring = secretKeyring(deps.env);
  if (input.check) return secretsReport(keyring, await storedSecrets(deps.store.db, keyring));
  const primary = keyring.primary;
  if (!primary) throw new SluiceError('secret_key_missing', 'SLUICE_SECRET_KEY is not set: there is no key to encrypt under');

  return deps.store.db.transaction(async (tx) => {
    const secrets = await storedSecrets(tx, keyring, { forUpdate: true });
    const before = secretsReport(keyring, secrets);
    if (before.undecryptable > 0) {
      throw new SluiceError(
        'rekey_blocked',
        `${before.undecryptable} stored password${before.undecryptable === 1 ? '' : 's'} cannot be decrypted with the configured keys; nothing was re-encrypted`,
        { undecryptable: before.undecryptable, undecryptable_values: before.undecryptable_values },
      );
    }
    let rekeyed = 0;
    const after: StoredSecret[] = [];
    for (const secret of secrets) {
      if (secret.kind === 'encrypted' && secret.keyId === primary.id) {
        after.push(secret);
        continue;
      }
      const value = keyring.encrypt(secret.plaintext!);
      const { column } = secret;
      await tx.execute(sql`update ${column.table} set ${sql.identifier(column.value.name)} = ${value} where ${column.id} = ${secret.id}`);
      after.push({ ...secret, kind: 'encrypted', value, keyId: primary.id });
      rekeyed++;
    }
    if (rekeyed > 0) {
      await recordAudit(tx, {
        actor: actor.name,
        action: 'rekey',
        target: 'secrets',
        workspace: null,
        changes: {
          values: secrets.length,
          rekeyed,
          from_plaintext: before.plaintext,
          from_old_keys: before.under_old_keys,
        },
      });
    }
    return { ...secretsReport(keyring, after), rekeyed };
  });
}
