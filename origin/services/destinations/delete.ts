import { eq } from 'drizzle-orm';
import type { Caller } from '../../access/caller.ts';
import { recordAudit } from '../../audit/record.ts';
import type { AppDeps } from '../../deps.ts';
import { SluiceError } from '../../errors.ts';
import { destinations, exports } from '../../store/schema/index.ts';
import { assertIfMatch, findDestination } from './lookup.ts';
import { type DestinationView, auditSnapshot, destinationView, rowFields } from './view.ts';
import { forgetManaged } from '../config/managed.ts';

/**
 * Deletes a destination: the `delete_destination` change (a full snapshot,
 * password `********`). Refused with 409 `destination_in_use`, naming them,
 * while exports deliver to it; the row stays locked until the delete
 * commits, so an export created meanwhile finds it gone or still there.
 * Answers the destination as it was.
 */
export async function deleteDestination(
  deps: AppDeps,
  actor: Caller,
  name: string,
  { workspace, ifMatch }: { workspace?: string; ifMatch?: string } = {},
): Promise<DestinationView> {
  return deps.store.db.transaction(async (tx) => {
    const current = await findDestination(tx, name, { workspace, forUpdate: true });
    assertIfMatch(ifMatch, current);
    const users = await tx.select({ name: exports.name }).from(exports).where(eq(exports.destination, current.name)).orderBy(exports.name);
    if (users.length > 0) {
      const names = users.map((u) => u.name);
      throw new SluiceError('destination_in_use', `Destination "${current.name}" is used by ${names.length === 1 ? 'the export' : 'exports'} ${names.map((n) => `"${n}"`).join(', ')}: change or delete ${names.length === 1 ? 'it' : 'them'} first`, {
        exports: names,
      });
    }
    await tx.delete(destinations).where(eq(destinations.id, current.id));
    await forgetManaged(tx, 'destinations', [current.name]);
    await recordAudit(tx, { actor: actor.name, action: 'delete_destination', target: current.name, workspace: current.workspace, changes: auditSnapshot(current.name, rowFields(current)) });
    return destinationView(current);
  });
}
