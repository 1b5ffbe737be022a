import { asc, eq, gt, max } from 'drizzle-orm';
import type { Store } from '../store/open.ts';
import { type RunRow, connections, queries, runs } from '../store/schema/index.ts';

/** A stored run with what reachability reads of its query and connection (null fields: ad-hoc, or the query or connection is gone). */
export interface FeedRun {
  run: RunRow;
  collection: string | null;
  workspace: string | null;
  connectionWorkspace: string | null;
}

export type FeedListener = (batch: FeedRun[]) => void;

/** Runs are written in batches every 250 ms; a little more finds most in one read. */
const POLL_MS = 300;
const BATCH = 1000;
/** How long a missing id is waited for: another origin's transaction that took it may still commit. */
const GAP_WAIT_MS = 5000;

/** Stored runs after `afterId`, oldest first, with their query's collection and workspace and their connection's workspace. */
export async function runsAfter(store: Pick<Store, 'db'>, afterId: number, limit = BATCH): Promise<FeedRun[]> {
  const rows = await store.db
    .select({ run: runs, collection: queries.collection, workspace: queries.workspace, connectionWorkspace: connections.workspace })
    .from(runs)
    .leftJoin(queries, eq(queries.name, runs.query))
    .leftJoin(connections, eq(connections.name, runs.connection))
    .where(gt(runs.id, afterId))
    .orderBy(asc(runs.id))
    .limit(limit);
  return rows;
}

/**
 * Every run as it is stored, announced to listeners: the source of
 * `GET /events`. It reads the runs table (while anyone listens) rather than
 * this process's recorder, so it announces the runs of every origin sharing
 * the store, each with its id for `Last-Event-ID`. Ids are taken before
 * commit, so a lower id can appear after a higher one: ids above `floor` are
 * remembered once announced, and a missing one is waited for GAP_WAIT_MS.
 */
export class RunFeed {
  private readonly listeners = new Set<FeedListener>();
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;
  private floor = 0;
  private readonly announced = new Set<number>();
  private gapSince: number | null = null;

  constructor(private readonly store: Pick<Store, 'db'>) {}

  /** Starts announcing runs stored from now on; resolves with the way to stop. */
  async subscribe(listener: FeedListener): Promise<() => void> {
    if (this.listeners.size === 0 && !this.timer) {
      const [row] = await this.store.db.select({ last: max(runs.id) }).from(runs);
      this.floor = Number(row?.last ?? 0);
      this.announced.clear();
      this.gapSince = null;
      this.timer = setInterval(() => void this.poll(), POLL_MS);
      this.timer.unref();
    }
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = null;
      }
    };
  }

  private poll(): Promise<void> {
    this.polling ??= this.read()
      .catch(() => {
        // The store may be restarting: the next tick tries again from the same floor.
      })
      .finally(() => {
        this.polling = null;
      });
    return this.polling;
  }

  private async read(): Promise<void> {
    for (;;) {
      const rows = await runsAfter(this.store, this.floor);
      const fresh = rows.filter((row) => !this.announced.has(row.run.id));
      for (const row of fresh) this.announced.add(row.run.id);
      if (fresh.length > 0) for (const listener of this.listeners) listener(fresh);
      this.advance(Date.now());
      if (rows.length < BATCH || fresh.length === 0) return;
    }
  }

  /** Moves `floor` over every announced id that directly follows it; past a gap only once it waited long enough. */
  private advance(now: number): void {
    const before = this.floor;
    while (this.announced.delete(this.floor + 1)) this.floor += 1;
    if (this.floor !== before) this.gapSince = null;
    if (this.announced.size === 0) {
      this.gapSince = null;
      return;
    }
    this.gapSince ??= now;
    if (now - this.gapSince < GAP_WAIT_MS) return;
    this.floor = Math.min(...this.announced) - 1;
    this.gapSince = null;
    this.advance(now);
  }
}

const feeds = new WeakMap<object, RunFeed>();

/** The store's one feed in this process. */
export function runFeed(store: Pick<Store, 'db'>): RunFeed {
  let feed = feeds.get(store);
  if (!feed) feeds.set(store, (feed = new RunFeed(store)));
  return feed;
}
