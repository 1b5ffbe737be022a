import { eq } from 'drizzle-orm';
import { recordAudit } from '../../audit/record.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import { queries } from '../../store/schema/index.ts';
import { assertIfMatch, findQuery, versionsOf } from './lookup.ts';
import { versionSnapshot } from './view.ts';
import { afterQueryChange, announceQueryChange } from './definition-cache.ts';
import { forgetManaged } from '../config/managed.ts';

/** The answer to DELETE of a query: what was removed. */
export interface DeletedQuery {
  name: string;
  collection: string | null;
  /** The numbers of the versions removed, newest first. */
  versions: number[];
}

/**
 * Deletes a query with every version: the `delete_query` change, a full
 * snapshot (each version's definition). Run history stays.
 */
export async function deleteQuery(deps: AppDeps, actor: Caller, name: string, { workspace, ifMatch }: { workspace?: string; ifMatch?: string } = {}): Promise<DeletedQuery> {
  return afterQueryChange(deps.store, name, deps.store.db.transaction(async (tx) => {
    const current = await findQuery(tx, name, { workspace, forUpdate: true });
    assertIfMatch(ifMatch, current);
    const versions = (await versionsOf(tx, current.id)).reverse();
    await tx.delete(queries).where(eq(queries.id, current.id));
    await forgetManaged(tx, 'queries', [current.name]);
    await announceQueryChange(tx, name);
    await recordAudit(tx, {
      actor: actor.name,
      action: 'delete_query',
      target: name,
      workspace: current.workspace,
      changes: {
        name,
        collection: current.collection,
        published_version: current.publishedVersion,
        example: current.example,
        created_at: current.createdAt.toISOString(),
        versions: versions.map((v) => versionSnapshot(name, v)),
      },
    });
    return { name, collection: current.collection, versions: versions.map((v) => v.version) };
  }));
}
