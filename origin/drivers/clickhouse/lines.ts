/**
 * ClickHouse's side of `Driver.streamLines`: the statement described (not
 * run) with `DESCRIBE TABLE (…)` to learn its columns, wrapped in render.ts's
 * SQL, the wrapping described too (a statement that cannot be wrapped falls
 * back here, not later), then run as `FORMAT RawBLOB`: the rendered lines,
 * line ends included, concatenated with nothing added, streamed as the HTTP
 * body arrives. Parameters stay `{pN:Type}` placeholders bound by the server;
 * the settings, read-only mode and time limit are the JS path's.
 */
import type { Readable } from 'node:stream';
import { codeTokens, tokenize } from '../../sql/tokenizer.ts';
import { uniqueColumnNames } from '../column-names.ts';
import type { Outcome, StatementSource } from '../cursor.ts';
import type { ColumnMeta, LineFormat, RunRequest } from '../types.ts';
import { renderChLinesSql } from './render.ts';
import { ClickhouseRequest, type ClickhouseSession, type StatementHost } from './request.ts';
import { queryParams, withoutFinalSemicolon } from './statement.ts';
import { clickhouseType } from './types.ts';

const CHUNK_BYTES = 64 * 1024;
const EXCEPTION_MARKER = '\r\n__exception__\r\n';
const EXCEPTION_TAG_HEADER = 'x-clickhouse-exception-tag';

/** Statements a SELECT can wrap as a subquery. */
function wrappable(text: string): boolean {
  const first = codeTokens(tokenize(text, 'clickhouse'))[0];
  return first !== undefined && (first.text === '(' || first.word === 'SELECT' || first.word === 'WITH');
}

export class ClickhouseLines extends ClickhouseRequest implements StatementSource<Uint8Array> {
  private columns: ColumnMeta[] = [];
  private rendered = '';
  private chunks: AsyncIterator<Buffer> | null = null;
  /** Bytes read but not yet passed on: the tail where a server exception would begin. */
  private held: Buffer = Buffer.alloc(0);
  private marker: Buffer | null = null;
  private ended = false;

  constructor(
    driver: StatementHost,
    session: ClickhouseSession,
    request: RunRequest,
    private readonly format: LineFormat,
    readOnly: boolean,
  ) {
    super(driver, session, request, readOnly);
  }

  private async describe(text: string): Promise<{ name: string; type: string }[]> {
    const result = await this.driver.client.query({
      query: `DESCRIBE TABLE (${text}\n)`,
      query_params: queryParams(this.request.values),
      clickhouse_settings: { ...this.settings(), describe_compact_output: 1 },
      format: 'JSONEachRow',
    });
    return result.json<{ name: string; type: string }>();
  }

  /**
   * Describes the statement and its rendering (nothing runs). False when the
   * push-down cannot promise the JS bytes or anything fails: the caller then
   * finishes this source and uses `run()`, which reports the statement's own errors.
   */
  async plan(): Promise<boolean> {
    if (!wrappable(this.request.text)) return false;
    try {
      const source = withoutFinalSemicolon(this.request.text);
      const described = await this.describe(source);
      const keys = uniqueColumnNames(described.map((c) => c.name));
      const rendered = renderChLinesSql(source, described, this.format, keys);
      if (!rendered) return false;
      const check = await this.describe(rendered);
      if (check.length !== 1 || check[0].type !== 'String') return false;
      this.columns = described.map((c) => ({ name: c.name, dbType: c.type, kind: clickhouseType(c.type).kind }));
      this.rendered = rendered;
      return true;
    } catch {
      return false;
    }
  }

  async start(): Promise<ColumnMeta[]> {
    const result = await this.driver.client.exec({
      query: `${this.rendered}\nFORMAT RawBLOB`,
      query_params: queryParams(this.request.values),
      query_id: this.queryId,
      abort_signal: this.abort.signal,
      clickhouse_settings: this.settings(),
    });
    this.stream = result.stream as unknown as Readable;
    const tag = result.response_headers?.[EXCEPTION_TAG_HEADER];
    if (typeof tag === 'string' && tag !== '') this.marker = Buffer.from(`${EXCEPTION_MARKER}${tag}`);
    this.chunks = (this.stream as unknown as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    return this.columns;
  }

  /**
   * The next ~64 KiB of lines. A server that fails mid-stream (25.11 on)
   * appends its exception after a marker holding the response's own tag:
   * the marker's length less one stays held back, so no byte of it is ever
   * passed on, and finding it fails the statement.
   */
  async pull(): Promise<Uint8Array | null> {
    const keep = this.marker ? this.marker.length - 1 : 0;
    while (!this.ended && this.held.length < CHUNK_BYTES + keep) {
      const next = await this.chunks!.next();
      if (next.done) {
        this.ended = true;
        break;
      }
      this.held = this.held.length === 0 ? next.value : Buffer.concat([this.held, next.value]);
    }
    if (this.marker) {
      const at = this.held.indexOf(this.marker);
      if (at >= 0) throw await this.serverException(at);
    }
    const passed = this.ended ? this.held.length : Math.max(0, this.held.length - keep);
    if (passed === 0) return null;
    const chunk = this.held.subarray(0, passed);
    this.held = this.held.subarray(passed);
    return chunk;
  }

  /** The exception the server wrote after the marker at `at` (the stream read to its end). */
  private async serverException(at: number): Promise<Error> {
    const parts = [this.held.subarray(at)];
    for (let next = await this.chunks!.next(); !next.done; next = await this.chunks!.next()) parts.push(next.value);
    this.ended = true;
    // `<marker><tag>\n<message>\n<length> <tag>\r\n__exception__\r\n`
    const text = Buffer.concat(parts).subarray(this.marker!.length).toString('utf8');
    const message = text.replace(/\n\d+ \S+\r\n__exception__\r\n$/, '').trim();
    return new Error(message || 'ClickHouse failed while streaming');
  }

  async finish(_outcome: Outcome, interrupted: boolean): Promise<void> {
    if (this.stream && !this.ended) await this.stop().catch(() => {});
    this.held = Buffer.alloc(0);
    await this.release(interrupted);
  }
}
