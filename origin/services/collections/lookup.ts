import { SluiceError } from '../../errors.ts';
import { type GrantHolders, hasHolders } from './grants.ts';

export const collectionNotFound = (name: string) =>
  new SluiceError('collection_not_found', `Collection "${name}" not found: no query is in it and no grant names it`);

/** A collection exists while a query is in it or a grant names it. */
export const collectionExists = (queryCount: number, holders: GrantHolders): boolean => queryCount > 0 || hasHolders(holders);

/** Code-point order: the same on every store, whatever its collation. */
export const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
