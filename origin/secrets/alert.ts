import type { Alert } from '../alerts/types.ts';
import type { AppDeps } from '../deps.ts';
import { secretsReport, storedSecrets } from './inventory.ts';
import { secretKeyring } from './keyring.ts';

/**
 * `encryption_key_rotation_incomplete`: with SLUICE_SECRET_KEY set, stored
 * passwords that are not under its first key (older keys, plain text, or no
 * configured key opens them). Gone once a rekey has moved them all.
 */
export async function keyRotationAlerts(deps: Pick<AppDeps, 'env' | 'store'>): Promise<Alert[]> {
  const keyring = secretKeyring(deps.env);
  if (!keyring.primary) return [];
  const report = secretsReport(keyring, await storedSecrets(deps.store.db, keyring));
  const remaining = report.under_old_keys + report.plaintext + report.undecryptable;
  if (remaining === 0) return [];
  const parts = [
    report.under_old_keys > 0 ? `${report.under_old_keys} under older keys` : null,
    report.plaintext > 0 ? `${report.plaintext} in plain text` : null,
    report.undecryptable > 0 ? `${report.undecryptable} no configured key opens` : null,
  ].filter((part) => part !== null);
  return [
    {
      name: 'encryption_key_rotation_incomplete',
      severity: 'warning',
      subject: null,
      message: `${remaining} stored password${remaining === 1 ? ' is' : 's are'} not under the first key of SLUICE_SECRET_KEY (${parts.join(', ')}): run POST /api/v1/settings/rekey`,
      details: {
        first_key: keyring.primary.id,
        under_old_keys: report.under_old_keys,
        plaintext: report.plaintext,
        undecryptable: report.undecryptable,
        by_key: report.by_key,
      },
    },
  ];
}
