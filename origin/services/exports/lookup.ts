import { and, eq } from 'drizzle-orm';
import { SluiceError } from '../../errors.ts';
import type { StoreDb } from '../../store/open.ts';
import { type ExportRow, exports } from '../../store/schema/index.ts';
import { assertIfMatch as assertCurrent } from '../if-match.ts';
import { exportEtag } from './view.ts';

export const exportNotFound = (name: string) => new SluiceError('export_not_found', `Export "${name}" not found`);

/** The row of an export, or 404. `workspace` hides other workspaces' exports; `forUpdate` locks the row until the transaction ends. */
export async function findExport(db: StoreDb, name: string, { workspace, forUpdate = false }: { workspace?: string; forUpdate?: boolean } = {}): Promise<ExportRow> {
  const where = workspace === undefined ? eq(exports.name, name) : and(eq(exports.name, name), eq(exports.workspace, workspace));
  const query = db.select().from(exports).where(where);
  const [row] = forUpdate ? await query.for('update') : await query;
  if (!row) throw exportNotFound(name);
  return row;
}

/** `If-Match` against the export's current ETag (services/if-match.ts). */
export const assertIfMatch = (ifMatch: string | undefined, row: Pick<ExportRow, 'id' | 'revision' | 'name'>): void =>
  assertCurrent(ifMatch, exportEtag(row), `Export "${row.name}"`);
