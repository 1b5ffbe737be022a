import { eq } from 'drizzle-orm';
import { recordAudit } from '../../audit/record.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import { queries, queryVersions } from '../../store/schema/index.ts';
import { assertIfMatch, findQuery, findVersion, readQuery, versionsOf } from './lookup.ts';
import { reviseQuery } from './revise.ts';
import { fallbackAfterDelete } from './status.ts';
import { type QueryRead, type QueryView, versionSnapshot } from './view.ts';
import { afterQueryChange, announceQueryChange } from './definition-cache.ts';
import { forgetManaged } from '../config/managed.ts';

/** The answer to DELETE of a version: the query as it now is, or null when that was its last version. */
export interface DeletedVersion {
  name: string;
  version: number;
  query_removed: boolean;
  query: QueryView | null;
  /** The query's ETag after the delete; null when it was removed. */
  etag: string | null;
}

/**
 * Deletes one version: the `delete_query_version` change (a snapshot of the
 * version). Deleting the published version publishes the newest older one,
 * never a draft; with no older one the query is left unpublished. Deleting
 * the last version removes the query. Its number is never given out again.
 * Run history stays.
 */
export async function deleteVersion(
  deps: AppDeps,
  actor: Caller,
  name: string,
  version: number,
  { workspace, ifMatch }: { workspace?: string; ifMatch?: string } = {},
): Promise<DeletedVersion> {
  return afterQueryChange(deps.store, name, deps.store.db.transaction(async (tx) => {
    const current = await findQuery(tx, name, { workspace, forUpdate: true });
    assertIfMatch(ifMatch, current);
    const deleted = await findVersion(tx, current, version);
    const remaining = (await versionsOf(tx, current.id)).map((v) => v.version).filter((v) => v !== version);
    const snapshot = versionSnapshot(name, deleted);

    if (remaining.length === 0) {
      await tx.delete(queries).where(eq(queries.id, current.id));
      await forgetManaged(tx, 'queries', [current.name]);
      await announceQueryChange(tx, name);
      await recordAudit(tx, {
        actor: actor.name,
        action: 'delete_query_version',
        target: name,
        workspace: current.workspace,
        changes: { ...snapshot, query_removed: true },
      });
      return { name, version, query_removed: true, query: null, etag: null };
    }

    await tx.delete(queryVersions).where(eq(queryVersions.id, deleted.id));
    const wasPublished = current.publishedVersion === version;
    const publishedVersion = wasPublished ? fallbackAfterDelete(version, remaining) : current.publishedVersion;
    const row = await reviseQuery(tx, current, { publishedVersion });
    await recordAudit(tx, {
      actor: actor.name,
      action: 'delete_query_version',
      target: name,
      workspace: current.workspace,
      changes: { ...snapshot, ...(wasPublished ? { published_version: { from: version, to: publishedVersion } } : {}) },
    });
    const read: QueryRead = await readQuery(tx, row);
    return { name, version, query_removed: false, query: read.query, etag: read.etag };
  }));
}
