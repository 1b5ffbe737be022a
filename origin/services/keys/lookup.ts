import { createHash } from 'node:crypto';
import { and, eq, or } from 'drizzle-orm';
import { SluiceError } from '../../errors.ts';
import type { StoreDb } from '../../store/open.ts';
import { type ApiKeyRow, adminTokens, apiKeys } from '../../store/schema/index.ts';

export const keyNotFound = (name: string) => new SluiceError('key_not_found', `API key "${name}" not found`);

export const keyExists = (name: string) => new SluiceError('key_exists', `An API key named "${name}" already exists`);

export const secretTaken = (whose = { message: 'Another API key (or an administrator token) already has this secret', field: 'another API key or an administrator token already has this secret' }) =>
  new SluiceError('key_secret_taken', `${whose.message}: two callers cannot share one; make a new secret`, { errors: { secret_sha256: whose.field } });

const SERVER_KEY_SECRET = { message: "This is the server key's secret (SLUICE_API_KEY)", field: "is the server key's secret (SLUICE_API_KEY)" };

/**
 * 409 `key_secret_taken` when a secret of this SHA-256 is already some
 * caller's: another key's current or previous secret, an administrator
 * token, or the server key (`serverKey`, SLUICE_API_KEY: a key holding it
 * would be indistinguishable from break-glass). Only secrets chosen outside
 * the server (a configuration file's `secret_sha256`) can collide;
 * generated ones never do.
 */
export async function assertSecretFree(db: StoreDb, secretHash: string, { serverKey, exceptKeyId }: { serverKey?: string; exceptKeyId?: number } = {}): Promise<void> {
  if (serverKey && createHash('sha256').update(serverKey).digest('hex') === secretHash) throw secretTaken(SERVER_KEY_SECRET);
  const keys = await db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(or(eq(apiKeys.secretHash, secretHash), eq(apiKeys.previousSecretHash, secretHash)));
  const [token] = await db.select({ id: adminTokens.id }).from(adminTokens).where(eq(adminTokens.secretHash, secretHash));
  if (token || keys.some((key) => key.id !== exceptKeyId)) throw secretTaken();
}

/** Quoted, from id and revision: a key recreated under the same name never matches an old ETag. */
export const keyEtag = (row: Pick<ApiKeyRow, 'id' | 'revision'>): string => `"k${row.id}.${row.revision}"`;

/**
 * The row of a key, or 404 `key_not_found`. `workspace` (a workspace-scoped
 * call) hides keys of other workspaces. With `forUpdate` the row stays locked
 * until the transaction ends.
 */
export async function findKey(db: StoreDb, name: string, { workspace, forUpdate = false }: { workspace?: string; forUpdate?: boolean } = {}): Promise<ApiKeyRow> {
  const where = workspace === undefined ? eq(apiKeys.name, name) : and(eq(apiKeys.name, name), eq(apiKeys.workspace, workspace));
  const query = db.select().from(apiKeys).where(where);
  const [row] = forUpdate ? await query.for('update') : await query;
  if (!row) throw keyNotFound(name);
  return row;
}


/** True for a Postgres unique violation, however the driver wraps it; `constraint` narrows it to one index. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  for (let e = error as { code?: unknown; cause?: unknown; constraint?: unknown; constraint_name?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e.code === '23505') return constraint === undefined || e.constraint === constraint || e.constraint_name === constraint;
  }
  return false;
}
