import { assertTablesAllowed } from '../../access/allowed-tables.ts';
import { type AnyDriver, type Driver, runsSql } from '../../drivers/types.ts';
import type { Engine } from '../../sql/engine.ts';
import type { Env } from '../../env.ts';
import { SluiceError, badRequest } from '../../errors.ts';
import type { Caller } from '../../access/caller.ts';
import { isStatementKeyword } from '../../sql/guard.ts';
import { type StatementInfo, inspect } from '../../sql/index.ts';

/**
 * What the caller's grants allow a statement to do, worked out by
 * reachability before the run (origin/access/reachability.ts).
 */
export interface StatementAccess {
  /** Writes through this query or on this connection: the grants, capped by `SLUICE_ALLOW_WRITES`. */
  mayWrite: boolean;
  /** Lower-case leading write keywords; null: every write. */
  allowedWriteOps: string[] | null;
  /** `allowed_tables` entries; null: every table. */
  allowedTables: string[] | null;
  /** The server key (or anyone on a server without one): may use a connection SLUICE_REQUIRE_LEAST_PRIVILEGE refuses to others. */
  serverKey?: boolean;
}

/** 403 for a key without a `connections` grant of a connection it asks to run on. */
export const connectionNotGranted = (name: string) => new SluiceError('forbidden', `Connection "${name}" not granted to this API key`);

/** The connection's driver when it runs SQL; 400 naming the document endpoint for a document database. */
export function sqlDriver(driver: AnyDriver, connection: string): Driver {
  if (runsSql(driver)) return driver;
  throw badRequest(`Connection "${connection}" is a ${driver.type} connection: it runs document queries (POST /execute_mongo, or a saved query of query_type mongo), not SQL`);
}

/** A caller's statement access: writes as reachability decided, and the key's write keywords and tables. */
export const statementAccess = (caller: Pick<Caller, 'key' | 'admin'>, mayWrite: boolean): StatementAccess => ({
  mayWrite,
  serverKey: caller.admin,
  allowedWriteOps: caller.key?.grants.allowed_write_ops ?? null,
  allowedTables: caller.key?.grants.allowed_tables ?? null,
});

/**
 * The guard and the grants on one statement, before anything runs: one
 * statement (400 otherwise); a write only when not streaming, the server
 * allows writes, the grants allow this caller to write, and every write
 * keyword it performs is among the key's `allowed_write_ops` (403 naming the
 * permitted ones); with `allowed_tables`, every table it names allowed (403,
 * also when the tables cannot be determined).
 */
export function checkStatement(env: Pick<Env, 'SLUICE_ALLOW_WRITES'>, sql: string, engine: Engine, stream: boolean, access: StatementAccess): StatementInfo {
  const info = inspect(sql, engine);
  if (info.statementCount === 0) throw badRequest('sql is empty');
  if (info.statementCount > 1) throw badRequest('Only one statement is allowed per request');
  if (!info.isRead && info.keyword !== '' && !isStatementKeyword(info.keyword)) {
    throw badRequest(`Syntax error: no SQL statement starts with ${info.keyword} (reads start with SELECT, WITH, SHOW, DESCRIBE, EXPLAIN or VALUES)`);
  }
  if (!info.isRead) {
    if (stream) throw new SluiceError('writes_disabled', `Streaming is read-only: ${info.refusal}`);
    if (!env.SLUICE_ALLOW_WRITES) throw new SluiceError('writes_disabled', `Writes are disabled on this server: ${info.refusal}`);
    // A refusal that names no write (an executable comment, unreadable text) never runs, writes or not.
    if (info.writeOps.length === 0) throw new SluiceError('forbidden', `Statement refused: ${info.refusal}`);
    if (!access.mayWrite) throw new SluiceError('forbidden', `This API key may not write here: ${info.refusal}`);
    const permitted = access.allowedWriteOps;
    if (permitted !== null) {
      const refused = info.writeOps.filter((op) => !permitted.includes(op.toLowerCase()));
      if (refused.length > 0) {
        const list = permitted.length > 0 ? permitted.map((op) => op.toUpperCase()).join(', ') : 'none';
        throw new SluiceError('forbidden', `${refused.join(', ')} is not permitted for this API key; permitted operations: ${list}`);
      }
    }
  }
  if (access.allowedTables !== null) assertTablesAllowed(sql, engine, access.allowedTables);
  return info;
}
