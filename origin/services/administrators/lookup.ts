import { count, eq, sql } from 'drizzle-orm';
import { SluiceError } from '../../errors.ts';
import type { StoreDb } from '../../store/open.ts';
import { type AdministratorRow, adminTokens, administrators } from '../../store/schema/index.ts';
import { administratorEtag } from './view.ts';
import { assertIfMatch as assertCurrent } from '../if-match.ts';

export const adminNotFound = (name: string) => new SluiceError('admin_not_found', `Administrator "${name}" not found`);

/** The row of an administrator, or 404 `admin_not_found`. With `forUpdate`, locked until the transaction ends. */
export async function findAdministrator(db: StoreDb, name: string, { forUpdate = false } = {}): Promise<AdministratorRow> {
  const query = db.select().from(administrators).where(eq(administrators.name, name));
  const [row] = forUpdate ? await query.for('update') : await query;
  if (!row) throw adminNotFound(name);
  return row;
}

export async function tokenCount(db: StoreDb, administratorId: number): Promise<number> {
  const [row] = await db.select({ n: count() }).from(adminTokens).where(eq(adminTokens.administratorId, administratorId));
  return Number(row?.n ?? 0);
}

/** `If-Match` against the administrator's current ETag (services/if-match.ts). */
export const assertIfMatch = (ifMatch: string | undefined, row: Pick<AdministratorRow, 'id' | 'revision' | 'name'>): void =>
  assertCurrent(ifMatch, administratorEtag(row), `Administrator "${row.name}"`);

/** Any fixed number: one change to administrators at a time, so two demotions cannot both pass the last-owner check. */
const ADMINISTRATORS_LOCK = 7_311_010;

export async function lockAdministrators(tx: StoreDb): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${ADMINISTRATORS_LOCK})`);
}

/** Active owners, besides `exceptId` when given. */
export async function activeOwners(tx: StoreDb, exceptId?: number): Promise<number> {
  const rows = await tx.select({ id: administrators.id }).from(administrators).where(sql`${administrators.role} = 'owner' and ${administrators.active}`);
  return rows.filter((r) => r.id !== exceptId).length;
}

export const lastOwner = () =>
  new SluiceError('last_owner', 'No active owner would remain, and SLUICE_API_KEY is not set: nobody could manage administrators');
