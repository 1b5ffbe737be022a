import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client';
import { SluiceError } from '../../errors.ts';
import type { SessionCatalog } from '../pooled.ts';
import { buildListing } from '../schema-listing.ts';
import type { SchemaListing } from '../types.ts';
import { OUTPUT_SETTINGS, READ_ONLY } from './settings.ts';
import { withoutNullable } from './types.ts';

/** What catalog reads go through: the client, and the database the connection names. */
export interface CatalogHandle {
  client: ClickHouseClient;
  database: string;
  extraSettings: ClickHouseSettings;
}

const SYSTEM_DATABASES = new Set(['system', 'information_schema', 'INFORMATION_SCHEMA']);
const VIEW_ENGINES = new Set(['View', 'MaterializedView', 'LiveView', 'WindowView']);

/** Every catalog read is read-only on the server too, with the same output settings as statements. */
async function rows<T>(handle: CatalogHandle, query: string, params: Record<string, unknown> = {}): Promise<T[]> {
  const result = await handle.client.query({
    query,
    query_params: params,
    format: 'JSONCompactEachRow',
    clickhouse_settings: { ...handle.extraSettings, ...OUTPUT_SETTINGS, ...READ_ONLY },
  });
  return result.json<T>();
}

const SCHEMA_SQL = `
SELECT c.table, t.engine, c.name, c.type
  FROM system.columns c
  JOIN system.tables t ON t.database = c.database AND t.name = c.table
 WHERE c.database = {db:String}
 ORDER BY c.table, c.position
 LIMIT {max:UInt64}`;

async function schema(handle: CatalogHandle, database: string | null, maxColumns: number): Promise<SchemaListing> {
  const found = await rows<[string, string, string, string]>(handle, SCHEMA_SQL, { db: database ?? handle.database, max: maxColumns + 1 });
  return buildListing(
    found.map(([table, engine, column, type]) => ({
      table,
      kind: VIEW_ENGINES.has(engine) ? 'view' : 'table',
      column,
      ...withoutNullable(type),
    })),
    maxColumns,
  );
}

async function databases(handle: CatalogHandle): Promise<string[]> {
  const found = await rows<[string]>(handle, 'SELECT name FROM system.databases ORDER BY name');
  return found.map(([name]) => name).filter((name) => !SYSTEM_DATABASES.has(name));
}

/** `SHOW CREATE TABLE` (views too); `db.table` reads another database. */
async function tableDdl(handle: CatalogHandle, table: string): Promise<string> {
  const dot = table.indexOf('.');
  const database = dot > 0 ? table.slice(0, dot) : handle.database;
  const name = dot > 0 ? table.slice(dot + 1) : table;
  const found = await rows<[string]>(
    handle,
    'SELECT create_table_query FROM system.tables WHERE database = {db:String} AND name = {name:String}',
    { db: database, name },
  );
  if (found.length === 0 || !found[0][0]) throw new SluiceError('not_found', `Table ${table} was not found`);
  return `${found[0][0]};\n`;
}

export const clickhouseCatalog: SessionCatalog<CatalogHandle> = {
  schema,
  databases,
  tableDdl,
  ping: (handle) => rows(handle, 'SELECT 1'),
};
