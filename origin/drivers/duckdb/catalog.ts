import type { DuckDBConnection } from '@duckdb/node-api';
import { SluiceError } from '../../errors.ts';
import { FILES_CATALOG } from './instances.ts';
import type { SessionCatalog } from '../pooled.ts';
import { buildListing } from '../schema-listing.ts';
import type { SchemaListing } from '../types.ts';

/**
 * Catalog reads for DuckDB. Names are qualified as needed: tables of the
 * default database's `main` schema and the file views bare, another schema
 * as `schema.table`, another attached database as `database.schema.table`.
 * Beside a database file, the file views' catalog (duckdb-instances.ts) is
 * the session's own, never listed as a database.
 */

const OWN = `(database_name = current_database() or database_name in ('temp', '${FILES_CATALOG}'))`;

const RELATIONS = `
with rels as (
  select database_name, schema_name, table_name as name, 'table' as kind, sql from duckdb_tables() where not internal
  union all
  select database_name, schema_name, view_name, 'view', sql from duckdb_views() where not internal
), named as (
  select *, case
      when ${OWN} and schema_name = 'main' then name
      when ${OWN} then schema_name || '.' || name
      else database_name || '.' || schema_name || '.' || name
    end as qname
  from rels
)`;

const SCHEMA_SQL = `${RELATIONS}
select n.qname, n.kind, c.column_name, c.data_type, c.is_nullable, c.column_index
  from named n
  join duckdb_columns() c
    on c.database_name = n.database_name and c.schema_name = n.schema_name and c.table_name = n.name
 where $1::varchar is null or n.database_name = $1::varchar
 order by n.qname, c.column_index
 limit $2`;

async function rows(connection: DuckDBConnection, sql: string, values: (string | number | null)[] = []) {
  const reader = await connection.runAndReadAll(sql, values);
  return reader.getRowsJS() as unknown[][];
}

async function duckSchema(connection: DuckDBConnection, database: string | null, maxColumns: number): Promise<SchemaListing> {
  const found = await rows(connection, SCHEMA_SQL, [database, maxColumns + 1]);
  return buildListing(
    found.map(([table, kind, column, type, nullable]) => ({
      table: String(table),
      kind: String(kind),
      column: String(column),
      type: String(type),
      nullable: nullable === true,
    })),
    maxColumns,
  );
}

const COMMENTS_SQL = `
with rels as (
  select database_name, schema_name, table_name as name, comment from duckdb_tables() where not internal
  union all
  select database_name, schema_name, view_name, comment from duckdb_views() where not internal
), named as (
  select *, case when schema_name = 'main' then name else schema_name || '.' || name end as qname
  from rels where database_name = current_database()
)
select qname, null as column_name, comment, -1 as position from named where comment is not null and comment <> ''
union all
select n.qname, c.column_name, c.comment, c.column_index
  from named n
  join duckdb_columns() c on c.database_name = n.database_name and c.schema_name = n.schema_name and c.table_name = n.name
 where c.comment is not null and c.comment <> ''
 order by 1, 4`;

/** `COMMENT ON` of the tables, views and columns of the default database, named as the listing names them. */
async function duckComments(connection: DuckDBConnection) {
  const found = await rows(connection, COMMENTS_SQL);
  return found.map(([table, column, comment]) => ({ table: String(table), column: column === null ? null : String(column), comment: String(comment) }));
}

async function duckDatabases(connection: DuckDBConnection): Promise<string[]> {
  const found = await rows(connection, `select database_name from duckdb_databases() where not internal and database_name <> '${FILES_CATALOG}' order by 1`);
  return found.map(([name]) => String(name));
}

/** The CREATE statement DuckDB keeps for a table or view. */
async function duckTableDdl(connection: DuckDBConnection, table: string): Promise<string> {
  const found = await rows(connection, `${RELATIONS} select sql from named where qname = $1 limit 1`, [table]);
  if (!found.length || found[0][0] === null) throw new SluiceError('not_found', `Table ${table} was not found`);
  const sql = String(found[0][0]).trim();
  return `${sql.endsWith(';') ? sql : `${sql};`}\n`;
}

export const duckCatalog: SessionCatalog<DuckDBConnection> = {
  schema: duckSchema,
  databases: duckDatabases,
  comments: duckComments,
  tableDdl: duckTableDdl,
  ping: (connection) => connection.run('SELECT 1'),
};
