import { and, eq } from 'drizzle-orm';
import { connections } from '../../../store/schema/index.ts';
import { connectionNotFound } from '../../connections/lookup.ts';
import type { DescriptionItemInput } from '../../descriptions/fields.ts';
import { itemKey, itemsOf } from '../../descriptions/read.ts';
import { updateDescriptions } from '../../descriptions/update.ts';
import type { FieldChange } from '../plan.ts';
import { type Section, recordUpdate } from '../context.ts';
import type { DescriptionsEntry } from '../file.ts';

/** How a plan names an item: `table`, or `table.column`. */
const itemName = (table: string, column: string | null | undefined) => (column ? `${table}.${column}` : table);

/**
 * `descriptions`, keyed by connection (of the file's workspace): the items
 * listed are set through the API's own verb (`update_descriptions`); with
 * prune, the connection's items the entry lacks are removed. Notes left out
 * stay. The plan shows each item changed, by `table` or `table.column`,
 * and `notes`.
 */
export const descriptionsSection: Section<DescriptionsEntry> = {
  kind: 'descriptions',

  async upsert(deps, ctx, entry) {
    const db = deps.store.db;
    const [connection] = await db
      .select()
      .from(connections)
      .where(and(eq(connections.name, entry.name), eq(connections.workspace, ctx.workspace)));
    if (!connection) throw connectionNotFound(entry.name);

    const current = new Map((await itemsOf(db, connection.id)).map((item) => [itemKey(item.table, item.column), item]));
    const listed = new Map((entry.items ?? []).map((item) => [itemKey(item.table, item.column), item]));
    const wanted: DescriptionItemInput[] = [...listed.values()];
    if (ctx.prune) {
      for (const [key, item] of current) if (!listed.has(key)) wanted.push({ table: item.table, column: item.column, description: '' });
    }

    const fields: Record<string, FieldChange> = {};
    for (const item of wanted) {
      const from = current.get(itemKey(item.table, item.column))?.description ?? null;
      const to = item.description.trim() === '' ? null : item.description;
      if (from !== to) fields[itemName(item.table, item.column)] = { from, to };
    }
    const notes = entry.notes === undefined ? undefined : entry.notes === null || entry.notes.trim() === '' ? null : entry.notes;
    if (notes !== undefined && notes !== connection.notes) fields.notes = { from: connection.notes, to: notes };

    if (Object.keys(fields).length > 0) {
      await updateDescriptions(deps, ctx.actor, entry.name, { items: wanted, ...(notes === undefined ? {} : { notes }) }, { workspace: ctx.workspace });
    }
    recordUpdate(ctx, 'descriptions', entry.name, fields);
  },

  /** A connection's descriptions are never removed whole by prune: it only stops managing them. */
  async remove() {
    return false;
  },
};
