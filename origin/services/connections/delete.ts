import { eq } from 'drizzle-orm';
import { recordAudit } from '../../audit/record.ts';
import { SluiceError } from '../../errors.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import { connections, deletedConnections } from '../../store/schema/index.ts';
import { assertIfMatch, findConnection } from './lookup.ts';
import { type DeletedConnectionView, auditSnapshot, deletedConnectionView, rowFields } from './view.ts';
import { announceConnectionChange, connectionCache } from './cache.ts';
import { forgetManaged } from '../config/managed.ts';

/**
 * Deletes a connection: the `delete_connection` change. A reason is required.
 * The connection moves to the deleted list (a masked snapshot, who, why, when)
 * in the same transaction as its removal and its audit entry; the name is
 * free again once it commits.
 */
export async function deleteConnection(
  deps: AppDeps,
  actor: Caller,
  name: string,
  input: { reason?: unknown },
  { workspace, ifMatch }: { workspace?: string; ifMatch?: string } = {},
): Promise<DeletedConnectionView> {
  const reason = typeof input.reason === 'string' ? input.reason.trim() : '';
  if (reason === '') {
    throw new SluiceError('reason_required', 'Deleting a connection needs a reason: send {"reason": "..."}');
  }
  const deleted = await deps.store.db.transaction(async (tx) => {
    const current = await findConnection(tx, name, { workspace, forUpdate: true });
    assertIfMatch(ifMatch, current);
    const snapshot = {
      ...auditSnapshot(current.name, rowFields(current)),
      example: current.example,
      created_by: current.createdBy,
      created_at: current.createdAt.toISOString(),
    };
    await tx.delete(connections).where(eq(connections.id, current.id));
    await forgetManaged(tx, 'connections', [current.name]);
    const [entry] = await tx
      .insert(deletedConnections)
      .values({ name: current.name, workspace: current.workspace, snapshot, deletedBy: actor.name, reason })
      .returning();
    await recordAudit(tx, { actor: actor.name, action: 'delete_connection', target: current.name, workspace: current.workspace, changes: { ...snapshot, reason } });
    await announceConnectionChange(tx, current.name);
    return entry;
  });
  connectionCache(deps.store).invalidate(name);
  await deps.drivers.drop(name);
  deps.usage.forget(name);
  deps.privileges.forget(name);
  return deletedConnectionView(deleted);
}
