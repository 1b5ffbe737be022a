interface Counters {
  queries: number;
  errors: number;
  rows: number;
  durationMs: number;
}

export interface UsageView {
  queries: number;
  errors: number;
  rows: number;
  avg_duration_ms: number | null;
}

/** Live per-connection usage: per process, in memory, reset on restart (spec). */
export class ConnectionUsage {
  private readonly counters = new Map<string, Counters>();

  record(connection: string, outcome: { ok: boolean; rows: number; durationMs: number }): void {
    let c = this.counters.get(connection);
    if (!c) this.counters.set(connection, (c = { queries: 0, errors: 0, rows: 0, durationMs: 0 }));
    c.queries += 1;
    if (!outcome.ok) c.errors += 1;
    c.rows += outcome.rows;
    c.durationMs += outcome.durationMs;
  }

  view(connection: string): UsageView {
    const c = this.counters.get(connection);
    if (!c || c.queries === 0) return { queries: 0, errors: 0, rows: 0, avg_duration_ms: null };
    return { queries: c.queries, errors: c.errors, rows: c.rows, avg_duration_ms: Math.round((c.durationMs / c.queries) * 100) / 100 };
  }

  forget(connection: string): void {
    this.counters.delete(connection);
  }
}
