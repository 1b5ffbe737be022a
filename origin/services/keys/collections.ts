import { isNotNull } from 'drizzle-orm';
import { badRequest } from '../../errors.ts';
import type { StoreDb } from '../../store/open.ts';
import { queries } from '../../store/schema/index.ts';
import { allGrants, hasHolders } from '../collections/grants.ts';
import { byName } from '../collections/lookup.ts';

/** Every collection that exists: one a query is filed in, or one some key or role is granted. */
export async function existingCollections(tx: StoreDb): Promise<string[]> {
  const filed = await tx.selectDistinct({ collection: queries.collection }).from(queries).where(isNotNull(queries.collection));
  const names = new Set(filed.map((row) => row.collection!));
  for (const [name, holders] of await allGrants(tx)) if (hasHolders(holders)) names.add(name);
  return [...names].sort(byName);
}

/**
 * A `collections` grant may only name collections that exist (spec,
 * Authentication 7), except names the key or role already holds, so a grant
 * outliving its collection's last query can still be edited around. 400
 * `invalid_request` naming the unknown ones and listing the real ones.
 */
export async function assertCollectionsExist(tx: StoreDb, names: string[], held: string[] = []): Promise<void> {
  const fresh = names.filter((name) => !held.includes(name));
  if (fresh.length === 0) return;
  const existing = await existingCollections(tx);
  const missing = fresh.filter((name) => !existing.includes(name));
  if (missing.length === 0) return;
  const listed = existing.length > 0 ? existing.join(', ') : 'none';
  throw badRequest(
    `No collection named ${missing.map((m) => JSON.stringify(m)).join(', ')}: existing collections are ${listed}`,
    { errors: { collections: `unknown: ${missing.join(', ')}` }, collections: existing },
  );
}
