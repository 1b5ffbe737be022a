import { recordAudit } from '../../audit/record.ts';
import type { AppDeps, Caller } from '../../http/context.ts';
import type { StoreDb } from '../../store/open.ts';
import { assertCollectionName } from './fields.ts';
import { assertIfMatch, findQuery, readQuery } from './lookup.ts';
import { reviseQuery } from './revise.ts';
import type { QueryRead } from './view.ts';

/** Keys whose reach over a query changes when it moves between collections. */
export interface KeysAffected {
  keys_gaining_access: string[];
  keys_losing_access: string[];
}

/**
 * Which keys gain or lose the query when it moves `from` one collection `to`
 * another: a key reaches it through a `collections` grant on `to` and not
 * otherwise (gaining), or held it only through `from` (losing). API keys and
 * their grants arrive with access control; until then no key reaches any
 * query by collection, so both lists are empty.
 */
export async function keysAffectedByMove(
  _tx: StoreDb,
  _query: string,
  _from: string | null,
  _to: string | null,
): Promise<KeysAffected> {
  return { keys_gaining_access: [], keys_losing_access: [] };
}

/**
 * Moves a query to a collection, or out of any with null: the `move_query`
 * change, `{collection: {from, to}, keys_gaining_access, keys_losing_access}`.
 * Not a new version. A move to where it already is writes nothing.
 */
export async function moveQuery(
  deps: AppDeps,
  actor: Caller,
  name: string,
  collection: string | null,
  ifMatch?: string,
): Promise<QueryRead> {
  assertCollectionName(collection);
  return deps.store.db.transaction(async (tx) => {
    const current = await findQuery(tx, name, { forUpdate: true });
    assertIfMatch(ifMatch, current);
    if (current.collection === collection) return readQuery(tx, current);
    const keys = await keysAffectedByMove(tx, name, current.collection, collection);
    const row = await reviseQuery(tx, current, { collection });
    await recordAudit(tx, {
      actor: actor.name,
      action: 'move_query',
      target: name,
      changes: { collection: { from: current.collection, to: collection }, ...keys },
    });
    return readQuery(tx, row);
  });
}
