import type { Origin } from '../harness/origin.ts';

/** One Server-Sent Event as a client reads it. */
export interface SseEvent {
  event: string | null;
  id: string | null;
  data: string;
}

/**
 * A client of `GET /events` reading the raw stream: events, and the comment
 * lines (`: connected`, `: keepalive`) and `retry:` field it carries.
 */
export class EventStream {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  retry: number | null = null;
  private buffer = '';
  private readonly reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  private readonly decoder = new TextDecoder();

  private constructor(
    readonly response: Response,
    private readonly controller: AbortController,
  ) {
    this.reader = response.body?.getReader();
  }

  static async open(origin: Origin, headers: Record<string, string>): Promise<EventStream> {
    const controller = new AbortController();
    return new EventStream(await origin.fetch('/events', { headers, signal: controller.signal }), controller);
  }

  /** Waits for the `: connected` comment: from then on every run stored is announced. */
  async connected(): Promise<void> {
    await this.until(() => this.comments.includes('connected'));
  }

  /** Reads until `found` holds for the events read so far; throws after `ms`. */
  async until(found: (events: SseEvent[]) => boolean, ms = 10_000): Promise<SseEvent[]> {
    const deadline = Date.now() + ms;
    while (!found(this.events)) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`events not seen in ${ms} ms; got ${JSON.stringify(this.events)}`);
      const chunk = await Promise.race([this.reader!.read(), new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), left))]);
      if (chunk === 'late') continue;
      if (chunk.done) throw new Error('the event stream ended');
      this.take(this.decoder.decode(chunk.value, { stream: true }));
    }
    return this.events;
  }

  close(): void {
    this.controller.abort();
    void this.reader?.cancel().catch(() => {});
  }

  private take(text: string): void {
    this.buffer += text;
    for (let end = this.buffer.indexOf('\n\n'); end >= 0; end = this.buffer.indexOf('\n\n')) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const event: SseEvent = { event: null, id: null, data: '' };
      let data: string[] | null = null;
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) this.comments.push(line.slice(1).trim());
        else if (line.startsWith('retry: ')) this.retry = Number(line.slice(7));
        else if (line.startsWith('event: ')) event.event = line.slice(7);
        else if (line.startsWith('id: ')) event.id = line.slice(4);
        else if (line.startsWith('data: ')) (data ??= []).push(line.slice(6));
      }
      if (data) this.events.push({ ...event, data: data.join('\n') });
    }
  }
}

/** The run payloads of `run` events. */
export const runsOf = (events: SseEvent[]) => events.filter((e) => e.event === 'run').map((e) => ({ id: Number(e.id), ...JSON.parse(e.data) }));
