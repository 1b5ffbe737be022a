import { eq, inArray } from 'drizzle-orm';
import type { StoreDb } from '../../store/open.ts';
import { apiKeys, connections, examplesState, queries, roles } from '../../store/schema/index.ts';
import { byName } from '../collections/lookup.ts';

/** GET /api/v1/examples: the tour's state and the example objects the store holds now, by name. */
export interface ExamplesStatus {
  /** The whole tour was installed (POST /api/v1/examples finished). */
  loaded: boolean;
  /** An install began and did not finish: a POST completes it. */
  partial: boolean;
  /** The bundled dataset's connection, null when it is not there. */
  connection: string | null;
  queries: string[];
  roles: string[];
  keys: string[];
  collections: string[];
}

export type ExamplesStateValue = 'dataset' | 'loaded' | 'partial' | 'unloaded' | null;

export async function examplesStateOf(db: StoreDb): Promise<ExamplesStateValue> {
  const [row] = await db.select({ status: examplesState.status }).from(examplesState).where(eq(examplesState.id, 'examples'));
  return row?.status ?? null;
}

export async function setExamplesState(db: StoreDb, status: Exclude<ExamplesStateValue, null>): Promise<void> {
  await db
    .insert(examplesState)
    .values({ status })
    .onConflictDoUpdate({ target: examplesState.id, set: { status, updatedAt: new Date() } });
}

const sorted = (names: string[]) => [...names].sort(byName);

/** The objects marked `example` now (whatever the state says: one removed by hand is not listed). */
export async function examplesStatus(db: StoreDb): Promise<ExamplesStatus> {
  const state = await examplesStateOf(db);
  const [connection] = await db.select({ name: connections.name }).from(connections).where(eq(connections.example, true));
  const queryRows = await db.select({ name: queries.name, collection: queries.collection }).from(queries).where(eq(queries.example, true));
  const roleRows = await db.select({ name: roles.name }).from(roles).where(eq(roles.example, true));
  const keyRows = await db.select({ name: apiKeys.name }).from(apiKeys).where(eq(apiKeys.example, true));
  const collections = new Set(queryRows.flatMap((q) => (q.collection ? [q.collection] : [])));
  return {
    loaded: state === 'loaded',
    partial: state === 'partial',
    connection: connection?.name ?? null,
    queries: sorted(queryRows.map((q) => q.name)),
    roles: sorted(roleRows.map((r) => r.name)),
    keys: sorted(keyRows.map((k) => k.name)),
    collections: sorted([...collections]),
  };
}

/** Names among `names` held by an object of the table not marked `example`. */
export async function takenByOthers(
  db: StoreDb,
  table: typeof connections | typeof queries | typeof roles | typeof apiKeys,
  names: string[],
): Promise<string[]> {
  if (names.length === 0) return [];
  const rows = await db.select({ name: table.name, example: table.example }).from(table).where(inArray(table.name, names));
  return rows.filter((row) => !row.example).map((row) => row.name);
}
