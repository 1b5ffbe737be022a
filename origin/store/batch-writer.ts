import type { Logger } from '../observability/logger.ts';

/**
 * A queue written to the store in batches, off the request path (ADR 0005):
 * `add` only queues; a write starts `flushIntervalMs` after the first item
 * waits, or at once when `batchSize` wait, and writes what waited when it
 * began, one batch per write. What arrives meanwhile waits for its own turn:
 * under steady load, a write that also took what arrived during the last
 * would follow it at once, one small write per request. A write the store
 * refuses keeps its batch queued and is tried again a second later at the
 * soonest (the store may be restarting); while it refuses, at most
 * `maxQueued` items wait, the oldest dropped first. The
 * first refusal is logged, and the first write after it; none in between.
 * `close()` writes what is queued; nothing is queued after it.
 */

export interface BatchWriterOptions<T> {
  /** What is queued, as log lines name it ("run history"). */
  what: string;
  /** Writes one batch (in one transaction); a rejection keeps the batch queued. */
  write(batch: T[]): Promise<void>;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  flushIntervalMs: number;
  /** The most one write takes; this many waiting start a write at once. No limit by default. */
  batchSize?: number;
  /** No limit by default. */
  maxQueued?: number;
  /** Items of one key wait as one, for writes that add up by key (one upsert per row). */
  combine?: { key(item: T): string; merge(into: T, item: T): void };
  /** True when a write is due though nothing waits (the history's trim): `write` then gets an empty batch. */
  dueWhenEmpty?(): boolean;
}

/** Retries of a refused write come no sooner than this, whatever the interval. */
const RETRY_MS = 1000;

export class BatchWriter<T> {
  private queue: T[] = [];
  /** With `combine`: the waiting item of each key. */
  private readonly byKey = new Map<string, T>();
  private timer: NodeJS.Timeout | null = null;
  private draining: Promise<boolean> | null = null;
  private closed = false;
  private readonly batchSize: number;
  private readonly maxQueued: number;
  /** A write was refused and none has succeeded since: later refusals are not logged again. */
  private refusing = false;

  constructor(private readonly options: BatchWriterOptions<T>) {
    this.batchSize = options.batchSize ?? Infinity;
    this.maxQueued = options.maxQueued ?? Infinity;
  }

  /** Items waiting now. */
  get size(): number {
    return this.queue.length;
  }

  /** With `combine`: the item waiting under `key`. */
  waiting(key: string): T | undefined {
    return this.byKey.get(key);
  }

  /** Every item waiting, oldest first. */
  items(): readonly T[] {
    return this.queue;
  }

  /** Queues an item; false, queuing nothing, once closed. Never throws, never waits. */
  add(item: T): boolean {
    if (this.closed) return false;
    if (!this.mergeIntoWaiting(item)) {
      this.queue.push(item);
      this.index(item);
      if (this.queue.length > this.maxQueued) this.dropOldest(this.queue.length - this.maxQueued);
    }
    this.schedule(this.queue.length >= this.batchSize ? 0 : this.options.flushIntervalMs);
    return true;
  }

  /** Writes everything queued now. Resolves when written or given up on until the next try. */
  async flush(): Promise<void> {
    // A write under way took only what waited when it began: the rest goes in a write after it.
    if (this.draining && !(await this.draining)) return;
    await this.writeWaiting();
  }

  /** Stops the timer and writes what is queued; later items are refused. */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    // A write in progress first, then whatever arrived meanwhile.
    await this.flush();
    if (this.queue.length > 0) await this.flush();
    this.closed = true;
  }

  private index(item: T): void {
    if (this.options.combine) this.byKey.set(this.options.combine.key(item), item);
  }

  private unindex(item: T): void {
    if (this.options.combine) this.byKey.delete(this.options.combine.key(item));
  }

  /** True when `item` was added to the waiting item of its key. */
  private mergeIntoWaiting(item: T): boolean {
    const combine = this.options.combine;
    const waiting = combine && this.byKey.get(combine.key(item));
    if (!waiting) return false;
    combine.merge(waiting, item);
    return true;
  }

  private dropOldest(count: number): void {
    for (const item of this.queue.splice(0, count)) this.unindex(item);
    this.options.logger.warn({ dropped: count }, `${this.options.what} queue full: the oldest dropped`);
  }

  private schedule(delayMs: number): void {
    if (this.closed) return;
    if (this.timer && delayMs > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.writeWaiting();
    }, delayMs);
    // Shutdown flushes explicitly; a pending timer never keeps the process alive.
    this.timer.unref();
  }

  private take(count: number): T[] {
    const batch = this.queue.splice(0, Math.min(count, this.batchSize));
    for (const item of batch) this.unindex(item);
    return batch;
  }

  /** A refused batch goes back in front, each item merged into a newer one of its key where there is one. */
  private putBack(batch: T[]): void {
    const back = batch.filter((item) => !this.mergeIntoWaiting(item));
    for (const item of back) this.index(item);
    this.queue = back.concat(this.queue);
  }

  /** Writes what waits now, or joins the write under way; false when the store refused. */
  private writeWaiting(): Promise<boolean> {
    this.draining ??= this.drain().finally(() => {
      this.draining = null;
    });
    return this.draining;
  }

  /** Writes the items waiting as it starts, a batch at a time; later ones are scheduled as `add` would. */
  private async drain(): Promise<boolean> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    let left = this.queue.length;
    do {
      const batch = this.take(left);
      left -= batch.length;
      if (batch.length === 0 && !this.options.dueWhenEmpty?.()) break;
      try {
        await this.options.write(batch);
      } catch (err) {
        this.putBack(batch);
        // Once per outage, not once a second while the store is away.
        if (!this.refusing) {
          const fields = { err: { message: (err as Error).message }, queued: this.queue.length };
          this.options.logger.error(fields, `${this.options.what} not written: kept for the next try`);
        }
        this.refusing = true;
        if (!this.closed) this.schedule(Math.max(this.options.flushIntervalMs, RETRY_MS));
        return false;
      }
      if (this.refusing) {
        this.refusing = false;
        this.options.logger.info({ queued: this.queue.length }, `${this.options.what} written again`);
      }
    } while (left > 0);
    if (this.queue.length > 0) this.schedule(this.queue.length >= this.batchSize ? 0 : this.options.flushIntervalMs);
    return true;
  }
}
