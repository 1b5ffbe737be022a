import type { Logger } from '../observability/logger.ts';
import type { Env } from '../env.ts';
import type { Store } from '../store/open.ts';
import { isNotNull } from 'drizzle-orm';
import { SECRET_COLUMNS } from './columns.ts';
import { type StoredSecret, secretsReport, storedSecrets } from './inventory.ts';
import { secretKeyring } from './keyring.ts';
import { referenceOf } from './passwords.ts';
import { referenceProblem } from './references.ts';

const list = (secrets: StoredSecret[]) => secrets.map((s) => `${s.column.kind} "${s.name}"`).join(', ');

/**
 * Startup warnings about stored passwords (spec, Authentication 10): literals
 * kept in plain text, ciphertext with no key (or no key that opens it), and
 * values still under an older key. Names the owners, never a value.
 */
export async function warnAboutStoredSecrets(deps: { env: Env; store: Store; logger: Logger }): Promise<void> {
  const keyring = secretKeyring(deps.env);
  const secrets = await storedSecrets(deps.store.db, keyring);
  const report = secretsReport(keyring, secrets);
  const plaintext = secrets.filter((s) => s.kind === 'plaintext');
  const undecryptable = secrets.filter((s) => s.problem !== null);
  const keyed = keyring.primary !== undefined;
  if (plaintext.length > 0) {
    deps.logger.warn(
      keyed
        ? `${plaintext.length} stored password(s) are plain text although SLUICE_SECRET_KEY is set (${list(plaintext)}): POST /api/v1/settings/rekey encrypts them`
        : `${plaintext.length} stored password(s) are plain text (${list(plaintext)}): set SLUICE_SECRET_KEY to encrypt them at rest, or use \${VAR} references`,
    );
  }
  if (undecryptable.length > 0) {
    deps.logger.warn(
      keyed
        ? `${undecryptable.length} stored password(s) cannot be decrypted with the keys of SLUICE_SECRET_KEY (${list(undecryptable)}): add the key they were encrypted with`
        : `${undecryptable.length} stored password(s) are encrypted but SLUICE_SECRET_KEY is not set (${list(undecryptable)}): connections using them fail with secret_undecryptable`,
    );
  }
  if (report.under_old_keys > 0) {
    deps.logger.warn(`${report.under_old_keys} stored password(s) are under an older key of SLUICE_SECRET_KEY: POST /api/v1/settings/rekey re-encrypts them under the first`);
  }
}

/**
 * One warning per stored `${VAR}` reference the rule refuses (SLUICE_SECRET_REFS,
 * never a SLUICE_ setting): written before the rule, or left behind by a
 * narrower list. It is not expanded; the object fails on use until it is
 * changed. Names the object and the variable, never a value.
 */
export async function warnAboutRefusedReferences(deps: { env: Env; store: Store; logger: Logger }): Promise<void> {
  for (const column of SECRET_COLUMNS) {
    const rows = await deps.store.db.select({ name: column.name, value: column.value }).from(column.table).where(isNotNull(column.value));
    for (const row of rows) {
      const variable = referenceOf(row.value as string);
      const problem = variable === null ? null : referenceProblem(variable, deps.env.SLUICE_SECRET_REFS);
      if (problem === null) continue;
      deps.logger.warn({ [column.kind]: String(row.name), variable }, `the password of ${column.kind} "${String(row.name)}" is not expanded: ${problem}; using it fails until it is changed`);
    }
  }
}
