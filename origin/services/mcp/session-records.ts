import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Store } from '../../store/open.ts';
import { rowsOf } from '../../store/raw-rows.ts';

/**
 * The store's record of MCP sessions (ADR 0033), so that any origin on the
 * store can take a session up, and a session ended or expired anywhere is
 * gone everywhere: every end (a `DELETE`, the idle limit, a caller's limit)
 * deletes the row and, in the same statement, sends the id's hash on
 * `MCP_SESSIONS_CHANNEL` (delivered on commit) for the origins holding it.
 * Times are the store's clock, which every origin shares.
 */

export const MCP_SESSIONS_CHANNEL = 'sluice_mcp_sessions';
/** A session unused this long is gone (its client starts a new one). */
export const SESSION_IDLE_MS = 30 * 60_000;
/** Past this many sessions of one caller, its least recently used is ended. */
export const MAX_SESSIONS_PER_CALLER = 100;
/** The client's `initialize` params are kept whole up to this size; past it, only what identifies the client. */
const MAX_INIT_CHARS = 8192;

/** Only the hash of a session id is stored: the id lets its holder act as the caller who started it. */
export const sessionIdHash = (id: string): string => createHash('sha256').update(id).digest('hex');

export interface SessionInit {
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  clientInfo: Record<string, unknown>;
}

/**
 * What is kept of a client's `initialize` params, to be played again
 * elsewhere. Sluice asks nothing of clients, so their capabilities may be
 * dropped when the whole would be large (a body may be 10 MiB).
 */
export function storedInit(params: SessionInit): SessionInit {
  const whole = { protocolVersion: params.protocolVersion, capabilities: params.capabilities, clientInfo: params.clientInfo };
  if (JSON.stringify(whole).length <= MAX_INIT_CHARS) return whole;
  const short = (value: unknown) => String(value).slice(0, 200);
  return { protocolVersion: short(params.protocolVersion), capabilities: {}, clientInfo: { name: short(params.clientInfo.name), version: short(params.clientInfo.version) } };
}

const idle = (idleMs: number) => sql`now() - ${idleMs} * interval '1 millisecond'`;
const jsonList = (hashes: string[]) => sql`(select jsonb_array_elements_text(${JSON.stringify(hashes)}::jsonb))`;

/**
 * Records a new session of `owner`. In the same statement, the owner's
 * sessions past the newest `MAX_SESSIONS_PER_CALLER - 1` are ended; their
 * hashes are returned.
 */
export async function recordSession(store: Pick<Store, 'db'>, hash: string, owner: string, init: SessionInit): Promise<string[]> {
  const rows = await store.db.execute(sql`
    with added as (insert into mcp_sessions (id_hash, owner, init) values (${hash}, ${owner}, ${JSON.stringify(init)}::jsonb)),
    gone as (
      delete from mcp_sessions where id_hash in (
        select id_hash from mcp_sessions where owner = ${owner}
        order by last_used desc, created_at desc offset ${MAX_SESSIONS_PER_CALLER - 1})
      returning id_hash)
    select id_hash, pg_notify(${MCP_SESSIONS_CHANNEL}, id_hash) from gone`);
  return rowsOf<{ id_hash: string }>(rows).map((row) => row.id_hash);
}

/**
 * The `initialize` params of session `hash` when `owner` started it and it
 * has not been idle `idleMs`, its last use moved to now; otherwise null (a
 * session of another caller is one that does not exist).
 */
export async function claimSession(store: Pick<Store, 'db'>, hash: string, owner: string, idleMs = SESSION_IDLE_MS): Promise<SessionInit | null> {
  const rows = await store.db.execute(sql`
    update mcp_sessions set last_used = now()
    where id_hash = ${hash} and owner = ${owner} and last_used > ${idle(idleMs)}
    returning init`);
  return rowsOf<{ init: SessionInit }>(rows)[0]?.init ?? null;
}

/** Of `hashes`, those still live (not ended, not idle `idleMs`). */
export async function liveSessions(store: Pick<Store, 'db'>, hashes: string[], idleMs = SESSION_IDLE_MS): Promise<Set<string>> {
  if (hashes.length === 0) return new Set();
  const rows = await store.db.execute(sql`select id_hash from mcp_sessions where id_hash in ${jsonList(hashes)} and last_used > ${idle(idleMs)}`);
  return new Set(rowsOf<{ id_hash: string }>(rows).map((row) => row.id_hash));
}

/** Notes that the sessions `hashes` were used, in one statement (an origin sends them at most once a minute each). */
export async function touchSessions(store: Pick<Store, 'db'>, hashes: string[]): Promise<void> {
  if (hashes.length === 0) return;
  await store.db.execute(sql`update mcp_sessions set last_used = now() where id_hash in ${jsonList(hashes)}`);
}

/** Ends a session everywhere. */
export async function endSession(store: Pick<Store, 'db'>, hash: string): Promise<void> {
  await store.db.execute(sql`
    with gone as (delete from mcp_sessions where id_hash = ${hash} returning id_hash)
    select pg_notify(${MCP_SESSIONS_CHANNEL}, id_hash) from gone`);
}

/** Ends every session idle `idleMs` or more; their hashes are returned. */
export async function endIdleSessions(store: Pick<Store, 'db'>, idleMs = SESSION_IDLE_MS): Promise<string[]> {
  const rows = await store.db.execute(sql`
    with gone as (delete from mcp_sessions where last_used <= ${idle(idleMs)} returning id_hash)
    select id_hash, pg_notify(${MCP_SESSIONS_CHANNEL}, id_hash) from gone`);
  return rowsOf<{ id_hash: string }>(rows).map((row) => row.id_hash);
}
