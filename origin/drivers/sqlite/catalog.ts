import { SluiceError } from '../../errors.ts';
import type { SessionCatalog } from '../pooled.ts';
import { buildListing } from '../schema-listing.ts';
import type { SqliteSession } from './session.ts';

/** Catalog reads for SQLite, run by the session's process on its read-only handle. */

const SCHEMA_SQL = `
select m.name, m.type, p.name, p.type, p."notnull"
  from sqlite_master m join pragma_table_info(m.name) p
 where m.type in ('table', 'view') and m.name not like 'sqlite_%'
 order by m.name, p.cid
 limit ?`;

const DDL_SQL = "select sql from sqlite_master where type in ('table', 'view') and name = ? and sql is not null";

async function all(session: SqliteSession, text: string, values: unknown[] = []): Promise<unknown[][]> {
  const reply = await session.call({ op: 'all', text, values });
  return reply.type === 'rows' ? reply.rows : [];
}

export const sqliteCatalog: SessionCatalog<SqliteSession> = {
  async schema(session, _database, maxColumns) {
    const rows = await all(session, SCHEMA_SQL, [maxColumns + 1]);
    return buildListing(
      rows.map(([table, kind, column, type, notNull]) => ({
        table: String(table),
        kind: String(kind),
        column: String(column),
        type: String(type ?? ''),
        nullable: !notNull,
      })),
      maxColumns,
    );
  },

  /** A SQLite file is one database, `main`; the session is opened all the same, as a test. */
  async databases(session) {
    await all(session, 'select 1');
    return ['main'];
  },

  async tableDdl(session, table) {
    const rows = await all(session, DDL_SQL, [table]);
    if (!rows.length) throw new SluiceError('not_found', `Table ${table} was not found`);
    const ddl = String(rows[0][0]).trim();
    return `${ddl.endsWith(';') ? ddl : `${ddl};`}\n`;
  },

  ping: (session) => all(session, 'select 1'),
};
