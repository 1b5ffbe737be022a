import type { StoreDb } from '../../origin/store/open.ts';
import type { CollectionGrants, GrantHolders } from '../../origin/services/collections/grants.ts';

/** Shared helpers of the collection tests. */

export const COLLECTIONS = '/api/v1/collections';
export const collectionAt = (name: string) => `${COLLECTIONS}/${encodeURIComponent(name)}`;

type Holder = { kind: 'keys' | 'roles'; name: string };

/**
 * `collections` grants held in memory, as access control will keep them in
 * the store. Outside the store's transaction: a rename that fails after
 * widening leaves them widened, which is how a test interrupts one.
 */
export class FakeGrants implements CollectionGrants {
  readonly held = new Map<string, Set<string>>();
  /** Throws in `drop` while set: the rename's transaction rolls back after the grants were widened. */
  failDrop = false;

  constructor(grants: Record<string, string[]> = {}) {
    for (const [holder, names] of Object.entries(grants)) this.held.set(holder, new Set(names));
  }

  /** Holders are `key:<name>` or `role:<name>`. */
  private static parse(holder: string): Holder {
    const [kind, ...rest] = holder.split(':');
    return { kind: kind === 'role' ? 'roles' : 'keys', name: rest.join(':') };
  }

  async naming(_tx: StoreDb, name: string): Promise<GrantHolders> {
    return this.holdersOf(name);
  }

  async all(_tx: StoreDb): Promise<Map<string, GrantHolders>> {
    const names = new Set([...this.held.values()].flatMap((set) => [...set]));
    return new Map([...names].map((name) => [name, this.holdersOf(name)]));
  }

  async widen(_tx: StoreDb, from: string, to: string): Promise<void> {
    for (const names of this.held.values()) if (names.has(from)) names.add(to);
  }

  async drop(_tx: StoreDb, name: string): Promise<void> {
    if (this.failDrop) throw new Error('grants store unavailable');
    for (const names of this.held.values()) names.delete(name);
  }

  /** Every collection each holder names, for assertions. */
  snapshot(): Record<string, string[]> {
    return Object.fromEntries([...this.held].map(([holder, names]) => [holder, [...names].sort()]));
  }

  private holdersOf(name: string): GrantHolders {
    const holders: GrantHolders = { keys: [], roles: [] };
    for (const [holder, names] of this.held) {
      if (!names.has(name)) continue;
      const { kind, name: who } = FakeGrants.parse(holder);
      holders[kind].push(who);
    }
    holders.keys.sort();
    holders.roles.sort();
    return holders;
  }
}
