import { canonicalJson } from '../../shared/cache-key.ts';
import type { ReplicaChanges, ReplicaState } from '../../shared/edge/replica.ts';

/** The entries of `after` that differ from `before` (null: removed); empty when nothing changed. */
export function diffReplica(before: ReplicaState, after: ReplicaState): ReplicaChanges {
  const changes: ReplicaChanges = {};
  if (canonicalJson(before.settings) !== canonicalJson(after.settings)) changes.settings = after.settings;
  const keys = diffRecord(before.keys, after.keys);
  const secrets = diffRecord(before.secrets, after.secrets);
  const queries = diffRecord(before.queries, after.queries);
  if (keys) changes.keys = keys;
  if (secrets) changes.secrets = secrets;
  if (queries) changes.queries = queries;
  return changes;
}

export const noChanges = (changes: ReplicaChanges): boolean => Object.keys(changes).length === 0;

function diffRecord<T>(before: Record<string, T>, after: Record<string, T>): Record<string, T | null> | null {
  const changed: Array<[string, T | null]> = [];
  for (const [id, entry] of Object.entries(after)) {
    if (!Object.hasOwn(before, id) || canonicalJson(before[id]) !== canonicalJson(entry)) changed.push([id, entry]);
  }
  for (const id of Object.keys(before)) if (!Object.hasOwn(after, id)) changed.push([id, null]);
  // fromEntries: a name like `__proto__` stays an own key.
  return changed.length > 0 ? Object.fromEntries(changed) : null;
}
