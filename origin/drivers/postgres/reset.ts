import { randomBytes } from 'node:crypto';
import type postgres from 'postgres';

/**
 * Ends a statement's transaction so that the session goes back to the pool
 * as it was handed out, in one round trip (simple protocol, several
 * statements). DISCARD ALL itself cannot follow the COMMIT in one query
 * string (it refuses to run in a transaction block); the statements below
 * are what it runs.
 *
 * A read only ever ends in ROLLBACK, which undoes the settings it changed
 * (search_path, role, session_authorization: set_config(…, false) too), its
 * large objects, LISTEN, cursors and temporary objects. What a rollback
 * leaves is reset after every statement: session advisory locks, random()'s
 * seed, and dblink's connections. A statement prepared through SQL (a
 * function may PREPARE through EXECUTE) is not deallocated but ends the
 * session: DEALLOCATE ALL would also drop the statements the driver
 * prepared through the protocol, which no caller's SQL can make or name. A
 * write commits first, so everything DISCARD ALL resets is reset as well.
 *
 * Whether the database has dblink is read as the session opens and after
 * each write (which may have created it), not after every read: a lookup in
 * pg_extension costs a read more than the rest of the reset together.
 */

/** A session as the reset needs it. */
export interface PgResetSession {
  sql: postgres.Sql;
  /** The schema of the database's dblink extension, quoted, or null without one. */
  dblink: string | null;
}

/** The quoted schema of the dblink extension, or null. */
export const DBLINK_SCHEMA = `(SELECT e.extnamespace::pg_catalog.regnamespace::pg_catalog.text FROM pg_catalog.pg_extension e WHERE e.extname = 'dblink')`;

const AFTER_WRITE =
  'SET SESSION AUTHORIZATION DEFAULT; RESET ALL; CLOSE ALL; DEALLOCATE ALL; UNLISTEN *; DISCARD TEMP; DISCARD SEQUENCES';

/** Random bytes for 1,024 seeds at a time: one call to the system's generator per seed cost as much as the rest of the reset's own work. */
const SEED_BYTES = 6;
let seeds = Buffer.alloc(0);
let nextSeed = 0;

/** A fresh seed in [-1, 1) for setseed(): the backend's own is random until a caller sets one. */
function seed(): string {
  if (nextSeed + SEED_BYTES > seeds.length) {
    seeds = randomBytes(SEED_BYTES * 1024);
    nextSeed = 0;
  }
  const value = seeds.readUIntBE(nextSeed, SEED_BYTES);
  nextSeed += SEED_BYTES;
  return String(value / 2 ** 47 - 1);
}

/**
 * Qualified names: no function a caller created on the search path can stand in for these.
 * The prepared statements are read from the function under the pg_prepared_statements view:
 * planning the view and a count took the server longer than the rest of a one-row read's reset.
 */
function lastSelect(wrote: boolean): string {
  const after = wrote ? `${DBLINK_SCHEMA} AS dblink` : `EXISTS (SELECT FROM pg_catalog.pg_prepared_statement() s WHERE s.from_sql) AS sql_prepared`;
  return `SELECT pg_catalog.pg_advisory_unlock_all(), pg_catalog.setseed(${seed()}), ${after}`;
}

/** Closes every dblink connection, named or not; `schema` is the extension's, already quoted. */
function dropDblinks(schema: string): string {
  // A name holding the body's quote could end it early.
  if (schema.includes('$')) throw new Error(`dblink lives in schema ${schema}, which cannot be named in a DO body`);
  return `DO $$BEGIN
  PERFORM ${schema}.dblink_disconnect(c) FROM pg_catalog.unnest(${schema}.dblink_get_connections()) c;
  BEGIN PERFORM ${schema}.dblink_disconnect(); EXCEPTION WHEN connection_does_not_exist THEN NULL; END;
END$$`;
}

interface EndOptions {
  commit: boolean;
  wrote: boolean;
}

/** What ends a statement's transaction and resets its session: the text of one simple query (several statements). */
export function endText(options: EndOptions): string {
  return `${options.commit ? 'COMMIT' : 'ROLLBACK'}; ${options.wrote ? `${AFTER_WRITE}; ` : ''}${lastSelect(options.wrote)}`;
}

/**
 * Reads the answer of `endText`'s last statement (its one row, values as
 * text) and closes dblink's connections. Rejects when the session cannot be
 * reused: it must then be destroyed, not pooled.
 */
export async function afterEnd(session: PgResetSession, last: { dblink?: string | null; sql_prepared?: string } | undefined, wrote: boolean): Promise<void> {
  if (wrote) session.dblink = last?.dblink ?? null;
  else if (last?.sql_prepared !== 'f') throw new Error('a statement prepared through SQL is left: the session is not reused');
  if (session.dblink) await session.sql.unsafe(dropDblinks(session.dblink)).simple();
}

/**
 * Commits (a write read to its end or closed early) or rolls back, then
 * resets the session. Rejects when it could not: the session must then be
 * destroyed, not pooled.
 */
export async function endTransaction(session: PgResetSession, options: EndOptions): Promise<void> {
  const results = (await session.sql.unsafe(endText(options)).simple()) as unknown as Record<string, string | null>[][];
  await afterEnd(session, results[results.length - 1]?.[0], options.wrote);
}
