import { sql } from 'drizzle-orm';
import type { Logger } from '../observability/logger.ts';
import type { Env } from '../env.ts';
import type { Store, StoreDb } from '../store/open.ts';
import { type AccessSnapshot, readSnapshot } from './directory-snapshot.ts';
import { listenChannel } from './directory-listener.ts';

/**
 * The access directory: scoped keys and administrator tokens by the SHA-256
 * of their secrets, the administrators behind them, the workspaces, and
 * whether authentication is on, held in memory so that identifying a caller
 * reads nothing from the store (docs/decisions/0008-access-directory.md).
 *
 * Freshness (a revoked key must fail on the very next request):
 * - Every change to keys, roles, administrators, tokens, workspaces or
 *   members calls `invalidateAccess(tx)` inside its transaction. That drops
 *   the snapshot of every directory of this process, and sends
 *   `NOTIFY sluice_access` (delivered on commit) for the other origins.
 * - A snapshot read that started before an invalidation is never kept
 *   (generation check).
 * - PGlite runs one transaction at a time, so a read started after the
 *   invalidation waits for the commit. On PostgreSQL a read can still see the
 *   state before the commit, so the invalidation is repeated once the change
 *   is committed: when the request that made it ends (`accessChangeScope`,
 *   which also waits for the notification to come back before answering),
 *   and when this origin hears its own notification.
 * - On a shared store the directory serves memory only while its listener
 *   is connected; while it is down, every request reads what it needs from
 *   the store. A snapshot is also never older than a minute.
 */

export const ACCESS_CHANNEL = 'sluice_access';
const MAX_AGE_MS = 60_000;

export class AccessDirectory {
  private snapshot: { generation: number; value: AccessSnapshot; expires: number } | undefined;
  private loading: { generation: number; promise: Promise<AccessSnapshot> } | undefined;
  private generation = 0;

  constructor(
    private readonly db: StoreDb,
    readonly env: Pick<Env, 'SLUICE_API_KEY'>,
    /** false: nothing is served from memory (a shared store whose listener is not up). */
    private live: boolean,
  ) {}

  /**
   * What authentication needs. `hash` is the presented secret's hash: when
   * memory cannot be trusted, only that secret's key or token is read.
   */
  async view(hash?: string): Promise<AccessSnapshot> {
    if (!this.live) return readSnapshot(this.db, { hash: hash ?? null });
    const held = this.snapshot;
    if (held && held.generation === this.generation && held.expires > performance.now()) return held.value;
    if (!this.loading || this.loading.generation !== this.generation) {
      const generation = this.generation;
      const promise = readSnapshot(this.db).then((value) => {
        if (generation === this.generation) this.snapshot = { generation, value, expires: performance.now() + MAX_AGE_MS };
        return value;
      });
      const loading = { generation, promise };
      this.loading = loading;
      promise.then(
        () => this.loading === loading && (this.loading = undefined),
        () => this.loading === loading && (this.loading = undefined),
      );
    }
    return this.loading.promise;
  }

  /** Authentication is on once a server key, a scoped key or an administrator exists. */
  authenticationOn(snapshot: AccessSnapshot): boolean {
    return Boolean(this.env.SLUICE_API_KEY) || snapshot.hasKeys || snapshot.hasAdministrators;
  }

  /** Grows with every change to keys, roles, administrators, tokens or workspaces heard here (MCP sessions compare it to tell their tool lists may have changed). */
  changes(): number {
    return this.generation;
  }

  invalidate(): void {
    this.generation++;
    this.snapshot = undefined;
  }

  setLive(live: boolean): void {
    this.invalidate();
    this.live = live;
  }
}

const directories = new WeakMap<Store, AccessDirectory>();
/** Every directory of this process, so a change made through any store handle drops them all. */
const everyDirectory = new Set<WeakRef<AccessDirectory>>();

/** The directory of a store (one per store, made on first use; on a shared store it starts listening). */
export function accessDirectory(deps: { store: Store; env: Env; logger?: Logger }): AccessDirectory {
  let directory = directories.get(deps.store);
  if (directory) return directory;
  const shared = deps.store.kind === 'postgres';
  const made = new AccessDirectory(deps.store.db, deps.env, !shared);
  directory = made;
  directories.set(deps.store, made);
  everyDirectory.add(new WeakRef(made));
  if (shared && deps.env.SLUICE_DATABASE_URL) {
    listenChannel(
      deps.env.SLUICE_DATABASE_URL,
      ACCESS_CHANNEL,
      {
        onMessage: (payload) => {
          made.invalidate();
          heard(payload);
        },
        onUp: () => {
          liveListeners.add(made);
          made.setLive(true);
        },
        onDown: () => {
          liveListeners.delete(made);
          made.setLive(false);
        },
      },
      deps.logger,
    ).catch((err: Error) => deps.logger?.warn({ err: err.message }, 'access directory listener failed to start'));
  }
  return directory;
}

function invalidateEverywhere(): void {
  for (const ref of everyDirectory) {
    const directory = ref.deref();
    if (directory) directory.invalidate();
    else everyDirectory.delete(ref);
  }
}

/** Directories whose shared-store listener is connected: a change made here comes back to them. */
const liveListeners = new Set<AccessDirectory>();

/**
 * Notifications this process sent while a Management API request was open
 * and a listener was live, until they come back (or no request is open).
 */
const echoes = new Map<string, { waiters: (() => void)[] }>();
const processTag = `${process.pid}.${Math.random().toString(36).slice(2, 10)}`;
let sent = 0;
let openScopes = 0;
const ECHO_WAIT_MS = 2000;

const noteOf = (sequence: number) => `${processTag}.${sequence}`;

function heard(payload: string): void {
  const echo = echoes.get(payload);
  if (!echo) return;
  echoes.delete(payload);
  for (const resolve of echo.waiters) resolve();
}

/**
 * Runs `work` (a Management API request) noting the access changes sent
 * meanwhile. Once it ends, its transactions committed, the directories of
 * this process are dropped again; and when the request succeeded on a shared
 * store, the answer waits (up to 2 s) until this origin hears those
 * notifications back. The other origins' listeners are sent them at the same
 * commit, so by the time the caller can send another request anywhere, they
 * have it too; an origin whose listener is down reads the store per request.
 * The changes are told apart by when they were sent, not by an
 * AsyncLocalStorage (ADR 0015): a request that overlaps another may also wait
 * for the other's, which come back just as soon.
 */
export async function accessChangeScope(work: () => Promise<void>, succeeded: () => boolean): Promise<void> {
  const first = sent + 1;
  openScopes++;
  try {
    await work();
  } finally {
    const last = sent;
    if (last >= first) {
      invalidateEverywhere();
      const notes = Array.from({ length: last - first + 1 }, (_, i) => noteOf(first + i));
      if (succeeded() && liveListeners.size > 0) await Promise.all(notes.map(echoOf));
    }
    // Open until its wait is over, so that no other request's end forgets what it waits for.
    openScopes--;
    // Nobody waits any more: what never came back (a listener that went down) is forgotten.
    if (openScopes === 0) echoes.clear();
  }
}

/** Resolves when `note` comes back, at once when it already has (or was never awaited), or after 2 s. */
function echoOf(note: string): Promise<void> {
  const echo = echoes.get(note);
  if (!echo) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ECHO_WAIT_MS);
    echo.waiters.push(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Inside the transaction of a change to keys, roles, administrators, tokens,
 * workspaces or members: every origin on the store drops what it holds (this
 * one now and again after the commit, the others on the notification, which
 * is delivered on commit).
 */
export async function invalidateAccess(tx: Pick<StoreDb, 'execute'>): Promise<void> {
  const note = noteOf(++sent);
  if (openScopes > 0 && liveListeners.size > 0) echoes.set(note, { waiters: [] });
  await tx.execute(sql`select pg_notify(${ACCESS_CHANNEL}, ${note})`);
  invalidateEverywhere();
}
