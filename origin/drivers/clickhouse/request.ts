import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client';
import type { RunRequest } from '../types.ts';
import { OUTPUT_SETTINGS, READ_ONLY, timeLimit } from './settings.ts';

/** What a statement needs from its driver. */
export interface StatementHost {
  readonly client: ClickHouseClient;
  readonly extraSettings: ClickHouseSettings;
  /** `KILL QUERY` for the statement's id, from a request of its own. */
  killQuery(queryId: string): Promise<void>;
  release(session: ClickhouseSession, reusable: boolean): Promise<void>;
}

/** A slot of the pool: HTTP has no session to keep, but a slot bounds and counts statements like every driver's. */
export interface ClickhouseSession {
  id: number;
}

/**
 * One statement over HTTP, whether it answers rows (statement.ts) or
 * rendered lines (lines.ts): its query id, the abort of its request, the
 * kill of the query on the server, and its slot of the pool.
 */
export abstract class ClickhouseRequest {
  protected readonly queryId = randomUUID();
  protected readonly abort = new AbortController();
  protected stream: Readable | null = null;

  constructor(
    protected readonly driver: StatementHost,
    private readonly session: ClickhouseSession,
    protected readonly request: RunRequest,
    private readonly readOnly: boolean,
  ) {}

  protected settings(): ClickHouseSettings {
    return { ...this.driver.extraSettings, ...OUTPUT_SETTINGS, ...timeLimit(this.request.timeoutMs), ...(this.readOnly ? READ_ONLY : {}) };
  }

  interrupt(): Promise<void> {
    return this.stop();
  }

  /** Aborts the request and kills the query on the server, once. */
  protected async stop(): Promise<void> {
    if (this.abort.signal.aborted) return;
    this.abort.abort();
    this.stream?.destroy();
    await this.driver.killQuery(this.queryId);
  }

  /** The slot carries no connection state; it is dropped only after a cancel (time limit, client abort), as every driver drops its session then. */
  protected release(interrupted: boolean): Promise<void> {
    return this.driver.release(this.session, !interrupted).catch(() => {});
  }
}
