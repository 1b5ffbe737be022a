import { sql } from 'drizzle-orm';
import type { Logger } from '../observability/logger.ts';
import { Outage } from '../observability/outage.ts';
import type { Store } from './open.ts';

/** While the store is down, one background `select 1` tries it this often. */
export const STORE_PROBE_INTERVAL_MS = 1_000;
/** A probe that takes longer counts as a failure. */
const PROBE_TIMEOUT_MS = 1_000;
/** Sent as `Retry-After` (seconds) while the store is down. */
export const STORE_RETRY_AFTER_S = 5;

/** Socket errors and postgres.js's own connection codes: the server is not there. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
]);

/** SQLSTATE class 08 (connection exception) and 57P01–57P03 (the server shutting down or starting). */
const UNREACHABLE_STATE = /^(08...|57P0[123])$/;

/**
 * The error of `err`'s chain (drizzle wraps the driver's) that says the
 * server cannot be reached, if one does. Its message is the driver's (a
 * code, host and port), never drizzle's, which quotes the query's parameters.
 */
export function unreachableCause(err: unknown): (Error & { code: string }) | null {
  for (let at = err, depth = 0; at instanceof Error && depth < 5; at = at.cause, depth++) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || UNREACHABLE_STATE.test(code))) return at as Error & { code: string };
  }
  return null;
}

/**
 * Whether the PostgreSQL store answers. An unexpected request error that
 * says the server cannot be reached is confirmed with a probe; a failed probe
 * marks the store down: from then on every request but `/health` answers 503
 * `store_unavailable` at once (http/store-gate.ts), and a background probe a
 * second marks it up again. An outage is logged twice: down, then back. The
 * embedded store (PGlite) lives in the process and is never down.
 */
export class StoreAvailability {
  private readonly outage: Outage;

  constructor(
    private readonly store: Store,
    logger: Pick<Logger, 'info' | 'warn'>,
  ) {
    this.outage = new Outage({
      probe: () => this.answers(),
      intervalMs: STORE_PROBE_INTERVAL_MS,
      logger,
      downMessage: 'store unreachable: requests answer 503 store_unavailable until it is back',
      backMessage: 'store reachable again',
    });
  }

  get reachable(): boolean {
    return !this.outage.down;
  }

  /** True when `err` came of a store that does not answer now (it is then marked down). */
  async explains(err: unknown): Promise<boolean> {
    const cause = this.store.kind === 'postgres' ? unreachableCause(err) : null;
    if (!cause) return false;
    if (this.outage.down) return true;
    if (await this.answers()) return false;
    this.outage.markDown({ err: { code: cause.code, message: cause.message } });
    return true;
  }

  stop(): void {
    this.outage.stop();
  }

  private async answers(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS);
    });
    const probe = this.store.db.execute(sql`select 1`).then(
      () => true,
      () => false,
    );
    try {
      return await Promise.race([probe, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
