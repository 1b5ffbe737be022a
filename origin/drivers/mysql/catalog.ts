import type mysql from 'mysql2';
import { SluiceError } from '../../errors.ts';
import { exec } from './session.ts';
import type { SessionCatalog } from '../pooled.ts';
import { buildListing } from '../schema-listing.ts';
import type { SchemaListing } from '../types.ts';

/** Catalog reads for MySQL and MariaDB. */

const SYSTEM_SCHEMAS = ['information_schema', 'performance_schema', 'mysql', 'sys'];

const SCHEMA_SQL = `
SELECT c.TABLE_NAME, t.TABLE_TYPE, c.COLUMN_NAME, c.COLUMN_TYPE, c.IS_NULLABLE
  FROM information_schema.COLUMNS c
  JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME
 WHERE c.TABLE_SCHEMA = COALESCE(?, DATABASE())
 ORDER BY c.TABLE_NAME, c.ORDINAL_POSITION
 LIMIT ?`;

/** Tables and views of the connection's database (or `database` on the same server). */
async function mysqlSchema(conn: mysql.Connection, database: string | null, maxColumns: number): Promise<SchemaListing> {
  const rows = await exec<string[][]>(conn, SCHEMA_SQL, [database, maxColumns + 1]);
  return buildListing(
    rows.map(([table, kind, column, type, nullable]) => ({
      table: String(table),
      kind: kind === 'VIEW' ? 'view' : 'table',
      column: String(column),
      type: String(type),
      nullable: nullable === 'YES',
    })),
    maxColumns,
  );
}

const COMMENTS_SQL = `
SELECT TABLE_NAME, NULL, TABLE_COMMENT FROM information_schema.TABLES
 WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE <> 'VIEW' AND TABLE_COMMENT <> ''
UNION ALL
SELECT c.TABLE_NAME, c.COLUMN_NAME, c.COLUMN_COMMENT FROM information_schema.COLUMNS c
 WHERE c.TABLE_SCHEMA = DATABASE() AND c.COLUMN_COMMENT <> ''
 ORDER BY 1, 2`;

/** Table comments (a view's is always `VIEW`, so views are left out) and column comments of the connection's database. */
async function mysqlComments(conn: mysql.Connection) {
  const rows = await exec<(string | null)[][]>(conn, COMMENTS_SQL);
  return rows.map(([table, column, comment]) => ({ table: String(table), column: column === null ? null : String(column), comment: String(comment) }));
}

async function mysqlDatabases(conn: mysql.Connection): Promise<string[]> {
  const rows = await exec<string[][]>(conn, 'SHOW DATABASES');
  return rows.map(([name]) => String(name)).filter((name) => !SYSTEM_SCHEMAS.includes(name.toLowerCase()));
}

const quoteName = (name: string) => `\`${name.replace(/`/g, '``')}\``;

/** `SHOW CREATE TABLE` (or VIEW) text; `db.table` reads another database. */
async function mysqlTableDdl(conn: mysql.Connection, table: string): Promise<string> {
  const dot = table.indexOf('.');
  const name = dot > 0 ? `${quoteName(table.slice(0, dot))}.${quoteName(table.slice(dot + 1))}` : quoteName(table);
  try {
    const [row] = await exec<unknown[][]>(conn, `SHOW CREATE TABLE ${name}`);
    return `${String(row[1])};\n`;
  } catch (error) {
    if ((error as { errno?: number }).errno === 1146) throw new SluiceError('not_found', `Table ${table} was not found`);
    throw error;
  }
}

export const mysqlCatalog: SessionCatalog<mysql.Connection> = {
  schema: mysqlSchema,
  databases: mysqlDatabases,
  comments: mysqlComments,
  tableDdl: mysqlTableDdl,
  ping: (conn) => exec(conn, 'SELECT 1'),
};
