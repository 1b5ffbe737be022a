import { randomBytes } from 'node:crypto';
import { ADMIN_TOKEN_PREFIX, generateSecret, hashSecret } from '../../../shared/access/secret.ts';
import { recordAudit } from '../../audit/record.ts';
import type { StoreDb } from '../../store/open.ts';
import { type AdminTokenRow, adminTokens } from '../../store/schema/index.ts';
import { type TokenView, tokenView } from './view.ts';

/** A token as issued: its entry plus the secret, shown this once. */
export type IssuedToken = TokenView & { secret: string };

/**
 * Inside a transaction: a new token for an administrator, stored only as the
 * SHA-256 of its secret, and its `issue_token` audit entry (never the secret).
 */
export async function insertToken(
  tx: StoreDb,
  actor: string,
  administrator: { id: number; name: string },
  fields: { label: string | null; expiresAt: Date | null },
): Promise<IssuedToken> {
  const secret = generateSecret(ADMIN_TOKEN_PREFIX);
  const [row] = (await tx
    .insert(adminTokens)
    .values({
      id: randomBytes(8).toString('hex'),
      administratorId: administrator.id,
      label: fields.label,
      secretHash: await hashSecret(secret),
      expiresAt: fields.expiresAt,
    })
    .returning()) as [AdminTokenRow];
  await recordAudit(tx, {
    actor,
    action: 'issue_token',
    target: administrator.name,
    workspace: null,
    changes: { id: row.id, label: row.label, expires_at: row.expiresAt?.toISOString() ?? null },
  });
  return { ...tokenView(row), secret };
}
