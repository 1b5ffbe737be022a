import { and, asc, count, eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import { recordAudit } from '../../audit/record.ts';
import { SluiceError, badRequest } from '../../errors.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import type { StoreDb } from '../../store/open.ts';
import { apiKeys, queries, roles } from '../../store/schema/index.ts';
import { collectionNameProblem } from '../queries/fields.ts';
import { afterQueryChange } from '../queries/definition-cache.ts';
import { keysAffectedByMove } from '../queries/move.ts';
import { reviseQuery } from '../queries/revise.ts';
import { type CollectionGrants, holdersCovered, storeGrants } from './grants.ts';
import { byName, collectionExists, collectionNotFound } from './lookup.ts';

/** PATCH /api/v1/collections/{name}. */
export const renameFields = z.strictObject({
  name: z.string(),
  merge: z.boolean().optional(),
});
export type RenameFields = z.infer<typeof renameFields>;

/** What a rename changed: the `changes` of its `rename_collection` audit entry, and the response. */
export interface RenameResult {
  name: { from: string; to: string };
  /** The target existed already (queries or grants): the two collections are now one. */
  merge: boolean;
  /** An interrupted rename was completed (see `renameCollection`). */
  resumed: boolean;
  /** Queries re-filed from the old name to the new one. */
  queries: string[];
  /** Keys and roles whose grants named the old name and now name the new one. */
  keys: string[];
  roles: string[];
  /** Keys that reach a re-filed query through a grant of the target they held before (a merge). */
  keys_gaining_access: string[];
}

export const collectionTaken = (name: string) =>
  new SluiceError('collection_exists', `Collection "${name}" already exists: send merge: true to combine the two`, { name });

/**
 * Renames a collection, in one store transaction with one `rename_collection`
 * audit entry: grants naming the old name are widened to both names, the
 * queries in it are re-filed (each query's revision, so its ETag, moves on;
 * no new version), then the old name is dropped from the grants.
 *
 * 404 `collection_not_found` when no query is in the old name and no grant
 * names it; 400 for a new name outside the collection rules; 409
 * `collection_exists` when the target exists, unless `merge` is true.
 * Re-running a rename completes an interrupted one without `merge`: the
 * target then exists only as the first run left it, either the old name's
 * queries all re-filed and its holders all holding the new name, or the new
 * name held (by nothing but holders of the old one) with no query in it.
 * In both cases the rename changes nobody's reach. `workspace` (a
 * workspace-scoped call) renames it in that workspace only: its queries,
 * keys and roles; the same name elsewhere is another workspace's business.
 */
export async function renameCollection(
  deps: AppDeps,
  actor: Caller,
  from: string,
  input: RenameFields,
  { workspace, grants = storeGrants }: { workspace?: string; grants?: CollectionGrants } = {},
): Promise<RenameResult> {
  const to = input.name;
  const problem = collectionNameProblem(to);
  if (problem) throw badRequest(`New collection name ${JSON.stringify(to)} ${problem}`, { errors: { name: problem } });

  return afterQueryChange(deps.store, (result: RenameResult) => result.queries, deps.store.db.transaction(async (tx) => {
    // Locked: a concurrent move out of the old name waits for the rename.
    const inWorkspace = workspace === undefined ? undefined : eq(queries.workspace, workspace);
    const filed = await tx.select().from(queries).where(and(eq(queries.collection, from), inWorkspace)).orderBy(asc(queries.name)).for('update');
    const holders = await grants.naming(tx, from, workspace);
    if (!collectionExists(filed.length, holders)) throw collectionNotFound(from);
    const unchanged = { name: { from, to }, merge: false, resumed: false, queries: [], keys: [], roles: [], keys_gaining_access: [] };
    if (to === from) return unchanged;

    const [{ n: targetQueries }] = await tx.select({ n: count() }).from(queries).where(and(eq(queries.collection, to), inWorkspace));
    const targetHolders = await grants.naming(tx, to, workspace);
    const targetExists = collectionExists(targetQueries, targetHolders);
    // What an interrupted rename leaves: widened grants with the queries not yet re-filed, or
    // re-filed queries with the old name not yet dropped. Either way the rename changes nobody's reach.
    const resumed =
      targetExists &&
      ((filed.length === 0 && holdersCovered(holders, targetHolders)) || (targetQueries === 0 && holdersCovered(targetHolders, holders)));
    if (targetExists && !resumed && input.merge !== true) throw collectionTaken(to);

    await grants.widen(tx, from, to, workspace);
    const gaining = new Set<string>();
    for (const row of filed) {
      const affected = await keysAffectedByMove(tx, row.name, from, to);
      for (const key of affected.keys_gaining_access) gaining.add(key);
      await reviseQuery(tx, row, { collection: to });
    }
    await grants.drop(tx, from, workspace);

    const result: RenameResult = {
      ...unchanged,
      merge: targetExists && !resumed,
      resumed,
      queries: filed.map((row) => row.name).sort(byName),
      keys: holders.keys,
      roles: holders.roles,
      keys_gaining_access: [...gaining].sort(byName),
    };
    const entryWorkspace = await soleWorkspace(tx, filed, holders);
    await recordAudit(tx, { actor: actor.name, action: 'rename_collection', target: from, workspace: entryWorkspace, changes: { ...result } });
    return result;
  }));
}

/**
 * The one workspace every query, key and role of a rename belongs to, or
 * null when they span several: the audit entry names them all, so only a
 * server-wide reader may see it then.
 */
async function soleWorkspace(tx: StoreDb, filed: Array<{ workspace: string }>, holders: { keys: string[]; roles: string[] }): Promise<string | null> {
  const keyRows = holders.keys.length > 0 ? await tx.select({ workspace: apiKeys.workspace }).from(apiKeys).where(inArray(apiKeys.name, holders.keys)) : [];
  const roleRows = holders.roles.length > 0 ? await tx.select({ workspace: roles.workspace }).from(roles).where(inArray(roles.name, holders.roles)) : [];
  const all = new Set([...filed, ...keyRows, ...roleRows].map((row) => row.workspace));
  return all.size === 1 ? [...all][0]! : null;
}
