import { Hono } from 'hono';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../http/context.ts';
import { type EventView, eventViewFor } from '../services/history/event-view.ts';
import { type FeedRun, runFeed, runsAfter } from '../observability/run-feed.ts';
import { requestScopeOf } from '../http/request-scope.ts';

/** A comment line this often keeps proxies from closing an idle stream. */
const KEEPALIVE_MS = 15_000;
/** What a browser's EventSource waits before reconnecting (it then sends Last-Event-ID). */
const RETRY_MS = 3_000;

/**
 * GET /events: every run, as Server-Sent Events, filtered to what the caller
 * may see (observability/event-visibility.ts). Each event is `event: run`,
 * `id: <run id>`, and the run as `GET /api/v1/history` lists it. With
 * `Last-Event-ID` (the header EventSource sends when it reconnects, or a
 * `last_event_id` argument) the runs stored after that id are sent first.
 * Documented in docs/reference/events.md.
 */
export const eventsRoute = new Hono<AppEnv>().get('/events', (c) => {
  const deps = c.get('deps');
  const view = eventViewFor(c.get('caller'));
  const lastId = parseLastEventId(c.req.header('last-event-id') ?? c.req.query('last_event_id'));
  const scope = requestScopeOf(c);
  const signal = c.req.raw.signal;
  return streamSSE(c, async (stream) => {
    const inbox = new Inbox();
    const close = () => inbox.close();
    stream.onAbort(close);
    signal.addEventListener('abort', close, { once: true });
    const unsubscribe = await runFeed(deps.store).subscribe((batch) => inbox.push(batch));
    try {
      await stream.write(`retry: ${RETRY_MS}\n: connected\n\n`);
      // Live runs up to what the replay reached were sent by it.
      const seen = lastId === null ? 0 : await replay(stream, deps, lastId, view);
      for (;;) {
        const batch = await inbox.next(KEEPALIVE_MS);
        if (batch === 'closed' || stream.aborted) return;
        if (batch === 'idle') await stream.write(': keepalive\n\n');
        else await send(stream, batch.filter((row) => row.run.id > seen), view);
      }
    } catch (err) {
      if (!stream.aborted) deps.logger.warn({ ...scope, err: { message: (err as Error).message } }, 'event stream ended by an error');
    } finally {
      unsubscribe();
      signal.removeEventListener('abort', close);
    }
  });
});

/** Sends the runs stored after `lastId`, page by page; answers the last id it reached. */
async function replay(stream: SSEStreamingApi, deps: AppDeps, lastId: number, view: EventView): Promise<number> {
  for (let after = lastId; ; ) {
    const rows = await runsAfter(deps.store, after);
    if (rows.length === 0 || stream.aborted) return after;
    await send(stream, rows, view);
    after = rows[rows.length - 1].run.id;
  }
}

async function send(stream: SSEStreamingApi, rows: FeedRun[], view: EventView): Promise<void> {
  for (const row of rows) {
    const item = view(row);
    if (item) await stream.writeSSE({ event: 'run', id: String(row.run.id), data: JSON.stringify(item) });
  }
}

/** A run id, or null for a missing or malformed one (the stream then starts from now). */
function parseLastEventId(raw: string | undefined): number | null {
  return raw !== undefined && /^\d{1,15}$/.test(raw.trim()) ? Number(raw.trim()) : null;
}

/** Batches announced by the feed, waiting for the stream to take them. */
class Inbox {
  private readonly batches: FeedRun[][] = [];
  private wake: (() => void) | null = null;
  private closed = false;

  push(batch: FeedRun[]): void {
    this.batches.push(batch);
    this.wake?.();
  }

  close(): void {
    this.closed = true;
    this.wake?.();
  }

  /** The next batch, `idle` after `timeoutMs` without one, or `closed`. */
  async next(timeoutMs: number): Promise<FeedRun[] | 'idle' | 'closed'> {
    if (this.closed) return 'closed';
    const ready = this.batches.shift();
    if (ready) return ready;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = null;
    if (this.closed) return 'closed';
    return this.batches.shift() ?? 'idle';
  }
}
