import { eq } from 'drizzle-orm';
import { invalidateAccess } from '../../access/directory.ts';
import { recordAudit } from '../../audit/record.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import { apiKeys } from '../../store/schema/index.ts';
import { assertIfMatch } from '../if-match.ts';
import { findKey, keyEtag } from './lookup.ts';
import { keySnapshot } from './view.ts';
import { forgetManaged } from '../config/managed.ts';

/**
 * Deletes a key: the `delete_key` change (a full snapshot, never a secret or
 * hash). Both its secrets stop working on the next request. Answers what
 * was removed.
 */
export async function deleteKey(
  deps: AppDeps,
  actor: Caller,
  name: string,
  { workspace, ifMatch }: { workspace?: string; ifMatch?: string } = {},
): Promise<Record<string, unknown>> {
  return deps.store.db.transaction(async (tx) => {
    const current = await findKey(tx, name, { workspace, forUpdate: true });
    assertIfMatch(ifMatch, keyEtag(current), `API key "${name}"`);
    await tx.delete(apiKeys).where(eq(apiKeys.id, current.id));
    await forgetManaged(tx, 'api_keys', [current.name]);
    const snapshot = keySnapshot(current);
    await recordAudit(tx, { actor: actor.name, action: 'delete_key', target: name, workspace: current.workspace, changes: snapshot });
    await invalidateAccess(tx);
    return snapshot;
  });
}
