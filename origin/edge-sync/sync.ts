import { sql } from 'drizzle-orm';
import type { Logger } from '../observability/logger.ts';
import type { Env } from '../env.ts';
import type { Store, StoreDb } from '../store/open.ts';
import type { ReplicaPush, ReplicaState, PushAnswer } from '../../shared/edge/replica.ts';
import { REPLICA_PATH, SIGNATURE_HEADER, sign } from '../../shared/edge/protocol.ts';
import { diffReplica, noChanges } from './diff.ts';
import { readReplica } from './replica.ts';

/**
 * Keeps the edge's replica in step with this origin
 * (docs/decisions/0012-edge-replica-consistency.md):
 *
 * - a full snapshot first, then only the entries that changed, each push
 *   signed and numbered one above the state it applies to;
 * - after every Management API change (origin/http/edge-push.ts) a push
 *   the call waits for, up to `waitMs`, so a revoked key fails at the edge on
 *   the very next request;
 * - a heartbeat every third of the lease, a push like any other (with no
 *   changes when none were made), which renews the edge's lease; an edge
 *   whose lease lapsed forwards every request to the origin;
 * - pushes that fail are retried with backoff, and a management call never
 *   fails because the edge could not be reached.
 *
 * Pushes run one at a time. On a shared store they also hold an advisory
 * lock while they read and send, so origins sharing the store push one at a
 * time and each push reads every change committed before it.
 */

export interface EdgeSyncOptions {
  url: string;
  secret: string;
  store: Store;
  env: Env;
  logger: Pick<Logger, 'info' | 'warn' | 'debug'>;
  leaseMs: number;
  /** How long a management call waits for its push. */
  waitMs?: number;
}

/** Any fixed number: serialises pushes of origins sharing one store. */
const PUSH_LOCK = 7_311_012;
const FIRST_RETRY_MS = 250;

class PushRefused extends Error {
  constructor(
    readonly status: number,
    readonly seq: number | null,
  ) {
    super(`edge answered ${status}`);
  }
}

export class EdgeSync {
  private acked: { seq: number; state: ReplicaState } | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private failures = 0;
  /** Evictions asked for; `evictionsSent` of them reached the edge. */
  private evictions = 0;
  private evictionsSent = 0;
  private stopped = false;
  private readonly heartbeatMs: number;
  private readonly waitMs: number;
  private readonly endpoint: string;

  constructor(private readonly options: EdgeSyncOptions) {
    this.heartbeatMs = Math.max(1000, Math.floor(options.leaseMs / 3));
    this.waitMs = options.waitMs ?? 2000;
    this.endpoint = new URL(REPLICA_PATH, options.url).href;
  }

  /** Sends the first snapshot now, then keeps the edge in step until `stop`. */
  start(): void {
    this.schedule(0);
  }

  /**
   * After a change: pushes what changed and resolves once the edge holds it
   * (true) or after `waitMs` (false; the push goes on, and is retried if it
   * fails). `evictCache` also drops every response the edge has cached.
   */
  changed(options: { evictCache?: boolean } = {}): Promise<boolean> {
    if (options.evictCache) this.evictions++;
    const pushed = this.enqueue(false);
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), this.waitMs);
    });
    return Promise.race([pushed, waited]).finally(() => clearTimeout(timer));
  }

  /** No push starts after this; one under way is left to end with the process (shutdown never waits on the edge). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.enqueue(true), delayMs);
    this.timer.unref();
  }

  /**
   * Queues one push after those already queued; resolves whether it reached
   * the edge (never rejects). A `renew` push is sent even with no changes:
   * heartbeats and retries; after a change, an empty one is skipped.
   */
  private enqueue(renew: boolean): Promise<boolean> {
    const run = this.chain.then(() => this.pushOnce(renew));
    this.chain = run;
    return run;
  }

  private async pushOnce(renew: boolean): Promise<boolean> {
    if (this.stopped) return false;
    try {
      const { store } = this.options;
      if (store.kind === 'postgres') {
        await store.db.transaction(async (tx) => {
          await tx.execute(sql`select pg_advisory_xact_lock(${PUSH_LOCK})`);
          await this.push(tx as unknown as StoreDb, renew);
        });
      } else {
        await this.push(store.db, renew);
      }
      if (this.failures > 0) this.options.logger.info({ edge: this.options.url }, 'edge reachable again; replica in sync');
      if (this.failures > 0 || renew) this.schedule(this.heartbeatMs);
      this.failures = 0;
      return true;
    } catch (err) {
      if (this.failures === 0) {
        this.options.logger.warn(
          { edge: this.options.url, err: { message: (err as Error).message } },
          'edge replica push failed; retrying (the edge forwards every request to the origin once its lease lapses)',
        );
      }
      this.failures++;
      this.schedule(Math.min(this.heartbeatMs, FIRST_RETRY_MS * 2 ** Math.min(this.failures - 1, 10)));
      return false;
    }
  }

  private async push(db: StoreDb, renew: boolean): Promise<void> {
    const state = await readReplica(db, this.options.env);
    const evictions = this.evictions;
    const evictCache = evictions > this.evictionsSent;
    const common = { ts: Date.now(), leaseMs: this.options.leaseMs, ...(evictCache ? { evictCache } : {}) };
    const acked = this.acked;
    const changes = acked ? diffReplica(acked.state, state) : null;
    if (acked && changes && noChanges(changes) && !evictCache && !renew) return;
    let message: ReplicaPush = acked ? { ...common, seq: acked.seq + 1, base: acked.seq, changes: changes! } : { ...common, seq: Date.now(), full: state };
    try {
      await this.post(message);
    } catch (err) {
      // Another origin pushed, or the edge lost its state: start over from a full snapshot above its number.
      if (!(err instanceof PushRefused) || err.status !== 409 || err.seq === null) throw err;
      this.acked = null;
      message = { ...common, seq: err.seq + 1, full: state };
      await this.post(message);
    }
    const first = this.acked === null;
    this.acked = { seq: message.seq, state };
    this.evictionsSent = evictions;
    if (first) this.options.logger.info({ edge: this.options.url, seq: message.seq }, 'edge replica in sync');
    else this.options.logger.debug({ edge: this.options.url, seq: message.seq }, 'edge replica pushed');
  }

  private async post(message: ReplicaPush): Promise<PushAnswer> {
    const body = JSON.stringify(message);
    const res = await fetch(this.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: await sign(this.options.secret, 'replica', body) },
      body,
      signal: AbortSignal.timeout(this.waitMs),
    });
    const answer = (await res.json().catch(() => null)) as Partial<PushAnswer> | null;
    if (!res.ok) throw new PushRefused(res.status, typeof answer?.seq === 'number' ? answer.seq : null);
    return { seq: Number(answer?.seq) };
  }
}
