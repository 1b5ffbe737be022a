import { hostname } from 'node:os';
import { asc, gt } from 'drizzle-orm';
import type { Logger } from '../../observability/logger.ts';
import type { Store } from '../../store/open.ts';
import { auditLog } from '../../store/schema/index.ts';
import { auditEntryView } from '../view.ts';
import type { AuditOutput } from './outputs.ts';
import { claimLease, recordDelivered, recordFailure, releaseLease } from './progress.ts';

const BATCH = 100;
const MAX_BACKOFF_MS = 30_000;

/**
 * Delivers audit entries to the configured outputs, in seq order, at least
 * once: an output gets a batch, then its progress moves in the store. Each
 * output has a lease in the store (progress.ts), so of several origins
 * sharing a store only the holder delivers; another takes over once the
 * lease runs out. The store is polled about once a second; a failing output
 * is retried with a doubling wait (1 s up to 30 s).
 */
export class AuditDeliverer {
  /** This process, as `GET /api/v1/audit/delivery` names the deliverer. */
  readonly instance = `${hostname()}:${process.pid}`;
  private timer: NodeJS.Timeout | undefined;
  private round: Promise<void> | undefined;
  private stopped = false;
  private readonly failures = new Map<string, { count: number; retryAt: number }>();

  constructor(
    private readonly store: Store,
    private readonly outputs: AuditOutput[],
    private readonly logger: Logger,
    private readonly intervalMs = 1000,
  ) {}

  start(): void {
    if (this.outputs.length === 0) return;
    const loop = () => {
      this.round = this.deliverAll().finally(() => {
        if (!this.stopped) this.timer = setTimeout(loop, this.intervalMs).unref();
      });
    };
    loop();
  }

  /** Finishes the round under way and hands the leases back. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.round;
    for (const output of this.outputs) await releaseLease(this.store.db, output.name, this.instance).catch(() => {});
  }

  private async deliverAll(): Promise<void> {
    for (const output of this.outputs) {
      if (this.stopped) return;
      const failure = this.failures.get(output.name);
      if (failure && failure.retryAt > Date.now()) continue;
      try {
        await this.deliver(output);
      } catch (err) {
        // The store itself failed (unreachable, shutting down): the next round tries again.
        this.logger.debug({ err: { message: (err as Error).message }, output: output.name }, 'audit delivery round failed');
      }
    }
  }

  private async deliver(output: AuditOutput): Promise<void> {
    const db = this.store.db;
    let delivered = await claimLease(db, output.name, output.target, this.instance);
    while (delivered !== null && !this.stopped) {
      const rows = await db.select().from(auditLog).where(gt(auditLog.seq, delivered)).orderBy(asc(auditLog.seq)).limit(BATCH);
      if (rows.length === 0) return;
      const skipped = rows[0].seq - delivered - 1;
      if (skipped > 0) this.logger.warn(`audit ${output.name} output: entries ${delivered + 1}-${rows[0].seq - 1} were removed (retention) before delivery`);
      try {
        await output.send(rows.map(auditEntryView));
      } catch (err) {
        const message = (err as Error).message;
        const count = (this.failures.get(output.name)?.count ?? 0) + 1;
        this.failures.set(output.name, { count, retryAt: Date.now() + Math.min(1000 * 2 ** (count - 1), MAX_BACKOFF_MS) });
        this.logger.warn(`audit ${output.name} output failed (attempt ${count}): ${message}`);
        await recordFailure(db, output.name, this.instance, message);
        return;
      }
      const last = rows[rows.length - 1].seq;
      if (!(await recordDelivered(db, output.name, this.instance, last, skipped))) return;
      if (this.failures.delete(output.name)) this.logger.info(`audit ${output.name} output recovered: delivered through seq ${last}`);
      delivered = rows.length < BATCH ? null : last;
    }
  }
}
