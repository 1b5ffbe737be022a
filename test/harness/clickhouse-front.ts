import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Session } from 'chdb';

/**
 * ClickHouse 26 (chdb, in process) behind a small HTTP front that speaks the
 * part of ClickHouse's HTTP interface `@clickhouse/client` uses, so the real
 * client talks to a real ClickHouse in tests. Run as its own process by
 * `startClickhouse()` (clickhouse.ts): `tsx clickhouse-front.ts <dataDir>
 * [port]` (0, the default, is a free one); it prints `listening <port>` once
 * ready.
 *
 * - The query is the body (after the `query` URL parameter when both are
 *   given); `database` picks the current database; `param_<name>` values
 *   bind `{name:Type}` placeholders (chdb binds them server-side; the text the
 *   client escaped is unescaped first); every other URL parameter is a
 *   setting.
 * - chdb takes settings only in SQL, and a `SET` would outlive the request
 *   (and `SET readonly = 1` could never be undone), so the request's settings
 *   become the statement's own `SETTINGS` clause: before a trailing `FORMAT`,
 *   after the table of an INSERT, else at the end. ClickHouse then enforces
 *   `readonly` itself.
 * - Results stream chunk by chunk with backpressure (chdb's `queryStream`).
 * - chdb registers no query in `system.processes` and runs one query at a
 *   time (another waits between two chunks of a stream). So the front keeps
 *   its own table of the statements it is streaming: `KILL QUERY WHERE
 *   query_id = '<id>'` (or a bound `{id:String}`) cancels one (chdb stops
 *   between chunks) and is listed by `GET /killed`, a closed
 *   client connection cancels its own, and `GET /processes` lists them
 *   (query id and text) for tests to watch.
 */

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: clickhouse-front.ts <dataDir> [port]');
const session = new Session(dataDir);

/** URL parameters that are not settings. */
const RESERVED = new Set(['query', 'query_id', 'database', 'default_format', 'session_id', 'session_timeout', 'session_check', 'user', 'password', 'compress', 'decompress', 'buffer_size', 'wait_end_of_query', 'enable_http_compression', 'http_headers_progress_interval_ms', 'send_progress_in_http_headers']);

interface Running {
  query: string;
  cancel(): void;
}
const running = new Map<string, Running>();
let counter = 0;

/** A value of ClickHouse's escaped text format (as the client sends `param_*`): `\N` is NULL. */
function unescape(text: string): string | null {
  if (text === '\\N') return null;
  const map: Record<string, string> = { b: '\b', f: '\f', r: '\r', n: '\n', t: '\t', '0': '\0', a: '\x07', v: '\v' };
  return text.replace(/\\(.)/gs, (_m, c: string) => map[c] ?? c);
}

function settingValue(value: string): string {
  return /^-?\d+(\.\d+)?$/.test(value) ? value : `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

/** The statement with the request's settings as its own SETTINGS clause. */
export function withSettings(query: string, settings: [string, string][]): string {
  const text = query.trim().replace(/;\s*$/, '');
  if (settings.length === 0) return text;
  const clause = ` SETTINGS ${settings.map(([k, v]) => `${k} = ${settingValue(v)}`).join(', ')} `;
  const format = /\sFORMAT\s+\w+\s*$/i.exec(text);
  if (format) return text.slice(0, format.index) + clause + text.slice(format.index);
  const insert = /^\s*INSERT\s+INTO\s+(?:TABLE\s+)?(?:`[^`]*`|"[^"]*"|[\w.]+)+(?:\s*\([^)]*\))?/i.exec(text);
  if (insert) return text.slice(0, insert[0].length) + clause + text.slice(insert[0].length);
  return text + clause;
}

function fail(res: ServerResponse, error: unknown): void {
  const message = (error instanceof Error ? error.message : String(error)).replace(/^Query failed: /, '');
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(/UNKNOWN_TABLE|UNKNOWN_DATABASE/.test(message) ? 404 : 500, { 'content-type': 'text/plain; charset=UTF-8', 'x-clickhouse-exception-code': /Code: (\d+)/.exec(message)?.[1] ?? '1' });
  res.end(`${message}\n`);
}

/** `KILL QUERY WHERE query_id = 'x'` (or `= {name:String}` with `param_name`), answered from the front's own table. */
function kill(query: string, url: URL, res: ServerResponse): boolean {
  const match = /^\s*KILL\s+QUERY\s+WHERE\s+query_id\s*=\s*(?:'([^']*)'|\{(\w+):String\})/i.exec(query);
  if (!match) return false;
  const id = match[1] ?? unescape(url.searchParams.get(`param_${match[2]}`) ?? '') ?? '';
  const target = running.get(id);
  target?.cancel();
  killed.push(id);
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end(target ? `finished\t${id}\n` : '');
  return true;
}

/** Query ids named by KILL QUERY, in order (`GET /killed`), so tests can see the kill arrive. */
const killed: string[] = [];

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://front');
  if (url.pathname === '/ping' || (url.pathname === '/' && req.method === 'GET' && !url.searchParams.has('query'))) {
    res.end('Ok.\n');
    return;
  }
  if (url.pathname === '/killed') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(killed));
    return;
  }
  if (url.pathname === '/processes') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify([...running].map(([id, r]) => ({ query_id: id, query: r.query }))));
    return;
  }
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  const body = Buffer.concat(parts).toString('utf8');
  const query = [url.searchParams.get('query'), body].filter((part) => part).join('\n');
  if (kill(query, url, res)) return;

  const params: Record<string, string | null> = {};
  const settings: [string, string][] = [];
  for (const [key, value] of url.searchParams) {
    if (key.startsWith('param_')) params[key.slice(6)] = unescape(value);
    else if (!RESERVED.has(key)) settings.push([key, value]);
  }
  const queryId = url.searchParams.get('query_id') || `front-${++counter}`;
  const statement = withSettings(query, settings);
  try {
    await session.queryAsync(`USE ${quoteName(url.searchParams.get('database') || 'default')}`);
  } catch (error) {
    fail(res, error);
    return;
  }
  const bound = Object.keys(params).length > 0;
  const lead = query.replace(/^(?:\s+|--[^\n]*\n|#[^\n]*\n|\/\*[\s\S]*?\*\/)*/, '');
  if (!/^(SELECT|WITH|SHOW|EXISTS|\()/i.test(lead)) {
    // chdb streams only reads (and not DESCRIBE or EXPLAIN: "Streaming query is not supported"); everything else runs whole.
    try {
      const result = bound ? await session.queryBindAsync(statement, params) : await session.queryAsync(statement);
      res.writeHead(200, { 'content-type': 'text/plain; charset=UTF-8', 'x-clickhouse-query-id': queryId });
      res.end(Buffer.from(result.bytes()));
    } catch (error) {
      fail(res, error);
    }
    return;
  }
  // chdb keeps one stream open at a time: the next waits for it to end.
  const turn = streams;
  let release = () => {};
  streams = new Promise<void>((resolve) => (release = resolve));
  await turn;
  if (res.destroyed) {
    release();
    return;
  }
  const withNames = /\sFORMAT\s+\w*WithNamesAndTypes\s*$/i.test(query) ? 2 : /\sFORMAT\s+\w*WithNames\s*$/i.test(query) ? 1 : 0;
  let stream: ReturnType<Session['queryStream']> | null = null;
  let chunks!: AsyncIterator<{ raw(): Uint8Array }>;
  let next!: IteratorResult<{ raw(): Uint8Array }>;
  let cancelled = false;
  const cancel = () => {
    cancelled = true;
    stream?.cancel();
    res.destroy();
  };
  running.set(queryId, { query, cancel });
  res.on('close', () => {
    if (!res.writableFinished) cancel();
    running.delete(queryId);
  });
  // Right after a cancelled stream chdb may fail the next one at once ("aborted", "No active streaming
  // query") while it lets go of the old one: the statement is started again, before any byte was sent.
  for (let attempt = 0; ; attempt++) {
    try {
      stream = await openStream(() => (bound ? session.queryStreamBind(statement, params) : session.queryStream(statement)));
      chunks = stream[Symbol.asyncIterator]();
      next = await chunks.next();
      break;
    } catch (error) {
      if (attempt < 30 && !cancelled && /aborted|No active streaming query/.test(String((error as Error).message))) {
        stream?.cancel();
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      running.delete(queryId);
      if (cancelled) await settle(stream);
      release();
      if (!cancelled) fail(res, error);
      return;
    }
  }
  let first = true;
  try {
    for (; !next.done; next = await chunks.next()) {
      if (cancelled) break;
      if (!res.headersSent) res.writeHead(200, { 'content-type': 'text/plain; charset=UTF-8', 'x-clickhouse-query-id': queryId });
      // chdb writes a WithNames format's header into every chunk; a server writes it once.
      const bytes = first || withNames === 0 ? next.value.raw() : dropLines(next.value.raw(), withNames);
      first = false;
      if (!res.write(bytes)) await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
    }
    if (!cancelled) {
      if (!res.headersSent) res.writeHead(200, { 'content-type': 'text/plain; charset=UTF-8', 'x-clickhouse-query-id': queryId });
      res.end();
    }
  } catch (error) {
    if (!cancelled) fail(res, error);
  } finally {
    running.delete(queryId);
    if (cancelled) await settle(stream);
    release();
  }
}

/**
 * chdb finishes cancelling a stream after its iterator has let go: read it to
 * its end, then give the engine a moment, or the next stream fails midway
 * ("aborted", "No active streaming query") after its first bytes were sent.
 */
async function settle(stream: { [Symbol.asyncIterator](): AsyncIterator<unknown> } | null): Promise<void> {
  try {
    if (stream) for await (const _ of stream as AsyncIterable<unknown>) break;
  } catch {
    // the cancelled stream's own error
  }
  try {
    await session.queryAsync('SELECT 1');
  } catch {
    // a leftover cancellation lands here rather than on the next client's stream
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
}

let streams: Promise<void> = Promise.resolve();

/** A cancelled stream lets go of chdb only once its current block is done: wait for it (up to 10 s). */
async function openStream<T>(open: () => T): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return open();
    } catch (error) {
      if (attempt >= 100 || !/already active/.test(String((error as Error).message))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

function dropLines(bytes: Uint8Array, count: number): Uint8Array {
  let at = 0;
  for (let i = 0; i < count; i++) at = bytes.indexOf(10, at) + 1;
  return bytes.subarray(at);
}

function quoteName(name: string): string {
  return `\`${name.replaceAll('\\', '\\\\').replaceAll('`', '\\`')}\``;
}

const server = createServer((req, res) => {
  handle(req, res).catch((error) => fail(res, error));
});
// Idle keep-alive sockets stay open longer than the client keeps them, so it never reuses one the front is closing.
server.keepAliveTimeout = 60_000;
server.listen(Number(process.argv[3] ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
});
const stop = () => {
  server.close();
  session.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
