import { isNotNull, sql } from 'drizzle-orm';
import type { StoreDb } from '../store/open.ts';
import { SECRET_COLUMNS, type SecretColumn } from './columns.ts';
import { type SecretKeyring, UndecryptableError, keyIdOf } from './keyring.ts';
import { type StoredKind, storedKind } from './passwords.ts';

/** One stored password as rekey and the reports see it. */
export interface StoredSecret {
  column: SecretColumn;
  id: unknown;
  name: string;
  kind: StoredKind;
  value: string;
  /** Encrypted: the key id it names (null when malformed). */
  keyId: string | null;
  /** Encrypted: the plaintext, or why it cannot be had. */
  plaintext: string | null;
  problem: string | null;
}

/**
 * Reads every stored password that is a secret (literal or encrypted; not
 * null, not a reference), decrypting each to learn whether it can be. With
 * `forUpdate` the rows stay locked until the transaction ends.
 */
export async function storedSecrets(db: StoreDb, keyring: SecretKeyring, { forUpdate = false } = {}): Promise<StoredSecret[]> {
  const out: StoredSecret[] = [];
  for (const column of SECRET_COLUMNS) {
    const query = db
      .select({ id: column.id, name: column.name, value: column.value })
      .from(column.table)
      .where(isNotNull(column.value))
      .orderBy(sql`${column.id}`);
    const rows = forUpdate ? await query.for('update') : await query;
    for (const row of rows) {
      const value = row.value as string;
      const kind = storedKind(value);
      if (kind === 'reference' || kind === 'none') continue;
      const secret: StoredSecret = { column, id: row.id, name: String(row.name), kind, value, keyId: null, plaintext: null, problem: null };
      if (kind === 'encrypted') {
        secret.keyId = keyIdOf(value);
        try {
          secret.plaintext = keyring.decrypt(value);
        } catch (err) {
          if (!(err instanceof UndecryptableError)) throw err;
          secret.problem = err.message;
        }
      } else {
        secret.plaintext = value;
      }
      out.push(secret);
    }
  }
  return out;
}

/** The counts `POST /api/v1/settings/rekey` reports (docs/reference/secrets.md). */
export interface SecretsReport {
  /** Configured key ids; the first encrypts. */
  keys: string[];
  /** Stored passwords that are secrets: literals and ciphertexts. */
  values: number;
  /** Ciphertexts per key id they name (ids no configured key has included). */
  by_key: Record<string, number>;
  /** Literals stored before a key was configured. */
  plaintext: number;
  /** Decryptable ciphertexts under a configured key other than the first. */
  under_old_keys: number;
  undecryptable: number;
  /** Which ones cannot be decrypted, and why. */
  undecryptable_values: Array<{ kind: string; name: string; key_id: string | null; problem: string }>;
}

export function secretsReport(keyring: SecretKeyring, secrets: StoredSecret[]): SecretsReport {
  const primary = keyring.primary?.id;
  const report: SecretsReport = {
    keys: keyring.keys.map((k) => k.id),
    values: secrets.length,
    by_key: {},
    plaintext: 0,
    under_old_keys: 0,
    undecryptable: 0,
    undecryptable_values: [],
  };
  for (const secret of secrets) {
    if (secret.kind === 'plaintext') {
      report.plaintext++;
      continue;
    }
    const id = secret.keyId ?? 'unreadable';
    report.by_key[id] = (report.by_key[id] ?? 0) + 1;
    if (secret.problem !== null) {
      report.undecryptable++;
      report.undecryptable_values.push({ kind: secret.column.kind, name: secret.name, key_id: secret.keyId, problem: secret.problem });
    } else if (secret.keyId !== primary) {
      report.under_old_keys++;
    }
  }
  return report;
}
