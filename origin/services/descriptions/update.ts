import { and, eq } from 'drizzle-orm';
import type { Caller } from '../../access/caller.ts';
import { recordAudit } from '../../audit/record.ts';
import type { AppDeps } from '../../deps.ts';
import type { StoreDb } from '../../store/open.ts';
import { type ConnectionRow, connections, descriptions } from '../../store/schema/index.ts';
import { findConnection } from '../connections/lookup.ts';
import type { DescriptionItemInput, Descriptions, PatchFields } from './fields.ts';
import { descriptionsOf, itemKey, itemsOf } from './read.ts';

/** One item's change as the audit entry shows it. */
export interface ItemChange {
  table: string;
  column: string | null;
  from: string | null;
  to: string | null;
}

/**
 * Sets the items given on `connection` inside the caller's transaction: an
 * empty description removes an item, any other replaces or adds it; items
 * not given stay. Returns what changed (an unchanged text is no change).
 */
export async function writeItems(tx: StoreDb, connection: ConnectionRow, items: DescriptionItemInput[]): Promise<ItemChange[]> {
  const current = new Map((await itemsOf(tx, connection.id)).map((item) => [itemKey(item.table, item.column), item.description]));
  const changes: ItemChange[] = [];
  // The last of an item given twice wins, as a later PATCH would.
  const given = new Map(items.map((item) => [itemKey(item.table, item.column), item]));
  for (const item of given.values()) {
    const column = item.column ?? null;
    const from = current.get(itemKey(item.table, column)) ?? null;
    const to = item.description.trim() === '' ? null : item.description;
    if (from === to) continue;
    const where = and(eq(descriptions.connectionId, connection.id), eq(descriptions.tableName, item.table), eq(descriptions.columnName, column ?? ''));
    if (to === null) await tx.delete(descriptions).where(where);
    else {
      await tx
        .insert(descriptions)
        .values({ connectionId: connection.id, tableName: item.table, columnName: column ?? '', description: to })
        .onConflictDoUpdate({ target: [descriptions.connectionId, descriptions.tableName, descriptions.columnName], set: { description: to, updatedAt: new Date() } });
    }
    changes.push({ table: item.table, column, from, to });
  }
  return changes;
}

/** Sets the connection's notes; '' or null removes them. Returns the change, or null when none. */
export async function writeNotes(tx: StoreDb, connection: ConnectionRow, notes: string | null): Promise<{ from: string | null; to: string | null } | null> {
  const to = notes === null || notes.trim() === '' ? null : notes;
  if (to === connection.notes) return null;
  await tx.update(connections).set({ notes: to }).where(eq(connections.id, connection.id));
  return { from: connection.notes, to };
}

/**
 * PATCH /api/v1/connections/{name}/descriptions: the `update_descriptions`
 * change (the items changed, each `{table, column, from, to}`, and the notes
 * `{from, to}`), in one transaction with its audit entry. A PATCH that
 * changes nothing writes nothing.
 */
export async function updateDescriptions(
  deps: AppDeps,
  actor: Caller,
  name: string,
  input: PatchFields,
  { workspace }: { workspace?: string } = {},
): Promise<Descriptions> {
  return deps.store.db.transaction(async (tx) => {
    const connection = await findConnection(tx, name, { workspace, forUpdate: true });
    const items = await writeItems(tx, connection, input.items ?? []);
    const notes = input.notes === undefined ? null : await writeNotes(tx, connection, input.notes);
    if (items.length > 0 || notes !== null) {
      await recordAudit(tx, { actor: actor.name, action: 'update_descriptions', target: connection.name, workspace: connection.workspace, changes: { items, ...(notes ? { notes } : {}) } });
    }
    return descriptionsOf(tx, notes ? { ...connection, notes: notes.to } : connection);
  });
}
