import type { Caller } from '../../access/caller.ts';
import { recordAudit } from '../../audit/record.ts';
import type { AppDeps } from '../../deps.ts';
import { badRequest } from '../../errors.ts';
import { findConnection, settingsOf } from '../connections/lookup.ts';
import type { DescriptionItem } from './fields.ts';
import { itemsOf } from './read.ts';
import { type ItemChange, writeItems } from './update.ts';

/** POST /api/v1/connections/{name}/descriptions/import */
export interface DescriptionsImport {
  connection: string;
  /** Comments the database holds. */
  found: number;
  /** Items added or changed by them. */
  changed: ItemChange[];
  items: DescriptionItem[];
}

/**
 * Copies the database's own comments (PostgreSQL and DuckDB `COMMENT ON`,
 * MySQL/MariaDB table and column comments) of the connection's own database
 * into its descriptions: a comment replaces the description of the same
 * table or column, descriptions with no comment stay. The `import_descriptions`
 * change (the items changed), in one transaction; nothing changed, nothing
 * written. An engine that keeps no comments (SQLite) is 400 `invalid_request`
 * saying so.
 */
export async function importDescriptions(deps: AppDeps, actor: Caller, name: string, { workspace }: { workspace?: string } = {}): Promise<DescriptionsImport> {
  const row = await findConnection(deps.store.db, name, { workspace });
  const comments = await deps.drivers.get(row.name, settingsOf(deps, row)).comments();
  if (comments === null) {
    throw badRequest(`A ${row.db} database keeps no comments on tables or columns: there is nothing to import. Write descriptions with PATCH /api/v1/connections/${row.name}/descriptions.`);
  }
  return deps.store.db.transaction(async (tx) => {
    const connection = await findConnection(tx, name, { workspace, forUpdate: true });
    const changed = await writeItems(tx, connection, comments.map((c) => ({ table: c.table, column: c.column, description: c.comment })));
    if (changed.length > 0) {
      await recordAudit(tx, { actor: actor.name, action: 'import_descriptions', target: connection.name, workspace: connection.workspace, changes: { found: comments.length, items: changed } });
    }
    return { connection: connection.name, found: comments.length, changed, items: await itemsOf(tx, connection.id) };
  });
}
