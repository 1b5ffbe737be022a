import type { StoreDb } from '../../store/open.ts';

/** The API keys and roles whose `collections` grants name one collection, each list sorted. */
export interface GrantHolders {
  keys: string[];
  roles: string[];
}

/**
 * What the collection verbs need to know about `collections` grants, in one
 * place. API keys and roles arrive with access control, which fills in the
 * store functions below; until then nothing holds a grant, so they name no
 * key or role and change nothing. The verbs take this as a parameter
 * (defaulting to `storeGrants`) so tests can give them grants of their own.
 */
export interface CollectionGrants {
  /** Keys and roles whose grants name `name`. */
  naming(tx: StoreDb, name: string): Promise<GrantHolders>;
  /** Every collection name some grant names, with its holders. */
  all(tx: StoreDb): Promise<Map<string, GrantHolders>>;
  /** Rename, first step: every grant naming `from` names `to` as well (nobody loses access meanwhile). */
  widen(tx: StoreDb, from: string, to: string): Promise<void>;
  /** Rename, last step (after the queries are re-filed): `name` is dropped from every grant. */
  drop(tx: StoreDb, name: string): Promise<void>;
}

export const noHolders = (): GrantHolders => ({ keys: [], roles: [] });

export const hasHolders = (holders: GrantHolders): boolean => holders.keys.length > 0 || holders.roles.length > 0;

/** Every key and role of `inner` also appears in `outer`. */
export const holdersCovered = (inner: GrantHolders, outer: GrantHolders): boolean =>
  inner.keys.every((key) => outer.keys.includes(key)) && inner.roles.every((role) => outer.roles.includes(role));

export async function grantsNaming(_tx: StoreDb, _name: string): Promise<GrantHolders> {
  return noHolders();
}

export async function allGrants(_tx: StoreDb): Promise<Map<string, GrantHolders>> {
  return new Map();
}

export async function widenGrants(_tx: StoreDb, _from: string, _to: string): Promise<void> {}

export async function dropFromGrants(_tx: StoreDb, _name: string): Promise<void> {}

/** The grants held in the store (none until access control exists). */
export const storeGrants: CollectionGrants = {
  naming: grantsNaming,
  all: allGrants,
  widen: widenGrants,
  drop: dropFromGrants,
};
