import type { AppDeps } from '../../deps.ts';
import { connectionForRun } from './lookup.ts';

export interface TableDdl {
  connection: string;
  table: string;
  ddl: string;
}

/** The DDL of one table, for browsing (the kept `GET /connections/{name}/table_ddl`). Inactive: 403. */
export async function tableDdl(deps: AppDeps, name: string, table: string): Promise<TableDdl> {
  const { name: saved, settings } = await connectionForRun(deps, name);
  const ddl = await deps.drivers.get(saved, settings).tableDdl(table);
  return { connection: saved, table, ddl };
}
