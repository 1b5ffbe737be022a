/**
 * PostgreSQL's side of `Driver.streamLines`: the statement described (not
 * run) to learn its columns, wrapped in pg-render.ts's SQL, and run as
 * `COPY (…) TO STDOUT (FORMAT binary)` inside the same `BEGIN [READ ONLY]`
 * with `SET LOCAL statement_timeout` as `run()`. Binary framing (one text
 * field per tuple, its length up front) means any byte of a line is safe; the
 * rendered lines, line ends included, are copied out as they are, in chunks of
 * about 64 KiB, read from the socket only as the consumer pulls.
 */
import { Readable } from 'node:stream';
import type postgres from 'postgres';
import { uniqueColumnNames } from '../column-names.ts';
import type { Outcome, StatementSource } from '../cursor.ts';
import { renderPgLinesSql, rendersType } from './render.ts';
import { endTransaction, type PgResetSession } from './reset.ts';
import type { PgType } from './types.ts';
import type { ColumnMeta, LineFormat, RunRequest } from '../types.ts';

const CHUNK_BYTES = 64 * 1024;

/** `PGCOPY\n\377\r\n\0`, then int32 flags and int32 header-extension length. */
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const HEADER_BYTES = SIGNATURE.length + 8;

/**
 * Settings the rendering SQL depends on, made local to the transaction so a
 * session's own cannot change the bytes; and no JIT: the rendering's long
 * expressions (and float8's never-run search, costed as if it ran per row)
 * would make PostgreSQL spend most of a second compiling them.
 */
const RENDER_SETTINGS = `SET LOCAL DateStyle = 'ISO, YMD'; SET LOCAL extra_float_digits = 3; SET LOCAL TimeZone = 'UTC'; SET LOCAL jit = off`;

type CopyQuery = postgres.PendingQuery<postgres.Row[]>;

/** How long a stopped COPY is read on while the cancel takes effect (see `drain`). */
const DRAIN_MS = 5_000;

/** What of postgres.js's Query this relies on beyond its types (query.js). */
interface CopyInternals {
  resolve(value: unknown): void;
  active: boolean;
  cancel(): unknown;
}

interface Describable {
  describe(): Promise<{ types: number[]; columns: { name: string; type: number }[] | null }>;
}

/** A PostgreSQL error (the session is fine after it) rather than a broken connection. */
function serverError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'severity' in error;
}

export class PgLines implements StatementSource<Uint8Array> {
  private columns: ColumnMeta[] = [];
  private rendered = '';
  private query: CopyQuery | null = null;
  private stream: Readable | null = null;
  private iterator: AsyncIterator<Buffer> | null = null;
  private begun = false;
  private ended = false;
  private cancelSent = false;
  private broken = false;
  // Binary COPY parsing: unparsed bytes, and the lines found so far.
  private rest: Buffer[] = [];
  private restBytes = 0;
  /** Bytes `rest` must reach before parsing can move on. */
  private need = HEADER_BYTES;
  private headerDone = false;
  private trailer = false;
  private lines: Buffer[] = [];
  private lineBytes = 0;

  constructor(
    private readonly session: PgResetSession,
    private readonly request: RunRequest,
    private readonly format: LineFormat,
    private readonly readOnly: boolean,
    private readonly typesOf: (oids: number[]) => PgType[],
    private readonly release: (reusable: boolean) => Promise<void>,
  ) {}

  /**
   * Opens the transaction and describes the statement and its rendering
   * (nothing runs). False when the push-down cannot promise the JS bytes, or
   * anything fails: the caller then finishes this source and uses `run()`.
   */
  async plan(): Promise<boolean> {
    const { sql } = this.session;
    if (this.request.values.length > 0) return false;
    const parameters = sql.parameters as Record<string, string | undefined>;
    // Text arrives as UTF-8 only from a UTF-8 database; numeric `extract(epoch)` is exact from 14 on.
    if (parameters.server_encoding !== 'UTF8' || !(parseInt(parameters.server_version ?? '0', 10) >= 14)) return false;
    try {
      const { timeoutMs } = this.request;
      const limit = timeoutMs > 0 ? `; SET LOCAL statement_timeout = ${Math.ceil(timeoutMs)}` : '';
      await sql.unsafe(`${this.readOnly ? 'BEGIN READ ONLY' : 'BEGIN'}${limit}; ${RENDER_SETTINGS}`).simple();
      this.begun = true;
      const described = await (sql.unsafe(this.request.text) as unknown as Describable).describe();
      const columns = described.columns ?? [];
      if (described.types.length > 0 || columns.length === 0) return false;
      const oids = columns.map((c) => c.type);
      if (!oids.every(rendersType)) return false;
      const keys = uniqueColumnNames(columns.map((c) => c.name));
      const rendered = renderPgLinesSql(this.request.text, oids, this.format, keys);
      if (!rendered) return false;
      // The wrapping must parse too (SHOW, EXPLAIN, INSERT … RETURNING cannot be wrapped).
      const check = await (sql.unsafe(rendered) as unknown as Describable).describe();
      if (check.columns?.length !== 1 || check.columns[0].type !== 25) return false;
      const types = this.typesOf(oids);
      this.columns = columns.map((c, i) => ({ name: c.name, dbType: types[i].name, kind: types[i].kind }));
      this.rendered = rendered;
      return true;
    } catch (error) {
      if (!serverError(error)) this.broken = true;
      return false;
    }
  }

  async start(): Promise<ColumnMeta[]> {
    const query = this.session.sql.unsafe(`COPY (${this.rendered}) TO STDOUT (FORMAT binary)`) as unknown as CopyInternals;
    // postgres.js may destroy the stream with the statement's error in the same tick it hands it over,
    // before any await here could listen: listen as it is handed over. Errors reach us through the iterator.
    const resolve = query.resolve;
    query.resolve = (value) => {
      if (value instanceof Readable) value.on('error', () => {});
      resolve(value);
    };
    this.query = query as unknown as CopyQuery;
    const stream = (await this.query.readable().catch((error: unknown) => this.over(error))) as unknown as Readable;
    this.stream = stream;
    this.iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    return this.columns;
  }

  async pull(): Promise<Uint8Array | null> {
    while (this.lineBytes < CHUNK_BYTES && !this.ended) {
      const result = await this.iterator!.next().catch((error: unknown) => this.over(error));
      if (result.done) {
        this.ended = true;
        this.resumeSocket();
        if (!this.trailer || this.restBytes > 0) throw new Error('the COPY stream ended mid-tuple');
        break;
      }
      this.parse(result.value);
    }
    if (this.lineBytes === 0) return null;
    const chunk = Buffer.concat(this.lines, this.lineBytes);
    this.lines = [];
    this.lineBytes = 0;
    return chunk;
  }

  /**
   * postgres.js pauses the socket when the stream's buffer is full and resumes
   * it from the stream's `_read`, which an ended or failed stream never calls
   * again: if the last CopyData paused it, what follows (CommandComplete,
   * ReadyForQuery, the answer to COMMIT or ROLLBACK) would wait unread forever.
   */
  private resumeSocket(): void {
    (this.stream as unknown as { _read(size: number): void } | null)?._read(0);
  }

  /**
   * Reads, and drops, what the backend still sends after the cancel. A
   * backend blocked writing to a full socket only acts on a cancel once its
   * write completes; and postgres.js pauses the socket for every message a
   * destroyed stream refuses, so destroying the stream would leave the
   * backend blocked, and the connection open, for good. The cancel then ends
   * the COPY within a few messages; past DRAIN_MS the stream is dropped anyway.
   */
  private async drain(): Promise<void> {
    const deadline = Date.now() + DRAIN_MS;
    try {
      while (this.iterator && Date.now() < deadline && !(await this.iterator.next()).done);
    } catch {
      // the cancel's error: the COPY is over
    }
    this.stream?.destroy();
    this.resumeSocket();
  }

  /** A server error ends the COPY and leaves the session usable (for ROLLBACK); anything else breaks it. */
  private over(error: unknown): never {
    if (serverError(error)) {
      this.ended = true;
      this.resumeSocket();
    } else this.broken = true;
    throw error;
  }

  /** Takes in COPY bytes split anywhere; whole tuples' lines move to `lines`. */
  private parse(data: Buffer): void {
    this.rest.push(data);
    this.restBytes += data.length;
    if (this.restBytes < this.need) return;
    const buf = this.rest.length === 1 ? this.rest[0] : Buffer.concat(this.rest, this.restBytes);
    let pos = 0;
    if (!this.headerDone) {
      if (!buf.subarray(0, SIGNATURE.length).equals(SIGNATURE)) throw new Error('not a binary COPY stream');
      const extension = buf.readUInt32BE(SIGNATURE.length + 4);
      if (buf.length < HEADER_BYTES + extension) {
        this.need = HEADER_BYTES + extension;
        this.rest = [buf];
        return;
      }
      pos = HEADER_BYTES + extension;
      this.headerDone = true;
    }
    this.need = 2;
    while (buf.length - pos >= 2) {
      if (this.trailer) throw new Error('data after the COPY trailer');
      const fields = buf.readInt16BE(pos);
      if (fields === -1) {
        this.trailer = true;
        pos += 2;
        continue;
      }
      if (fields !== 1) throw new Error(`a COPY tuple of ${fields} fields`);
      if (buf.length - pos < 6) {
        this.need = 6;
        break;
      }
      const length = buf.readInt32BE(pos + 2);
      if (length < 0) throw new Error('a NULL line');
      if (buf.length - pos < 6 + length) {
        this.need = 6 + length;
        break;
      }
      this.lines.push(buf.subarray(pos + 6, pos + 6 + length));
      this.lineBytes += length;
      pos += 6 + length;
    }
    const left = buf.subarray(pos);
    this.rest = left.length > 0 ? [left] : [];
    this.restBytes = left.length;
  }

  interrupt(): void {
    this.cancel();
  }

  /**
   * Sends PostgreSQL a cancel request for the COPY. postgres.js counts a COPY
   * as done once it hands over the stream, and only queues a cancel for a
   * query it thinks inactive: mark it active again so the request goes out.
   */
  private cancel(): void {
    const query = this.query as unknown as CopyInternals | null;
    if (!query || this.cancelSent) return;
    this.cancelSent = true;
    query.active = true;
    void Promise.resolve(query.cancel()).catch(() => {});
  }

  async finish(outcome: Outcome, interrupted: boolean): Promise<void> {
    // A cancel may land on whatever the backend runs next, and a COPY not read
    // to its end holds the connection: neither session is reused.
    let reusable = !interrupted && !this.broken;
    if (this.query && !this.ended) {
      reusable = false;
      this.cancel();
      await this.drain();
    } else if (this.begun && reusable) {
      try {
        await endTransaction(this.session, { commit: !this.readOnly && outcome !== 'failed', wrote: !this.readOnly });
      } catch {
        reusable = false;
      }
    }
    this.lines = [];
    this.rest = [];
    await this.release(reusable);
  }
}
