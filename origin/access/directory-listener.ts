import type { Logger } from '../observability/logger.ts';

/**
 * LISTEN on a channel of a shared PostgreSQL store on a connection of its
 * own, saying when it is up and when it is down. The access directory and
 * the MCP sessions need the "down" (to stop trusting memory at once), which
 * the store's pooled `listen` does not report; it reconnects itself, every
 * second until it is back.
 */
export interface ListenerEvents {
  onMessage(payload: string): void;
  /** Listening (again): notifications sent while it was away are lost. */
  onUp(): void;
  onDown(): void;
}

const RETRY_MS = 1000;

/** `label` names the listener in the log (`<label> listener down`). */
export async function listenChannel(
  url: string,
  channel: string,
  events: ListenerEvents,
  logger?: Logger,
  label = 'access directory',
): Promise<{ close(): Promise<void> }> {
  const { default: postgres } = await import('postgres');
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  // `onnotify` is how postgres.js delivers notifications; its types leave it out.
  const options = {
    max: 1,
    max_lifetime: null,
    fetch_types: false,
    onnotice: () => {},
    onnotify: (name: string, payload: string) => {
      if (name === channel) events.onMessage(payload);
    },
    onclose: () => {
      if (closed) return;
      events.onDown();
      schedule();
    },
  };
  const sql = postgres(url, options);

  /** Logged once per outage, not at every retry. */
  let down = false;
  const connect = async () => {
    try {
      await sql`listen ${sql(channel)}`;
      if (closed) return;
      if (down) logger?.info({ channel }, `${label} listener back`);
      down = false;
      events.onUp();
    } catch (err) {
      if (closed) return;
      if (!down) logger?.warn({ channel, err: (err as Error).message }, `${label} listener down; reading the store per request`);
      down = true;
      events.onDown();
      schedule();
    }
  };
  const schedule = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, RETRY_MS);
    retry.unref();
  };

  await connect();
  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      await sql.end({ timeout: 1 });
    },
  };
}
