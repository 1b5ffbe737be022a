import type { Readable } from 'node:stream';
import type { Row } from '@clickhouse/client';
import { codeTokens, tokenize } from '../../sql/tokenizer.ts';
import type { Value } from '../../values.ts';
import type { Outcome, StatementSource } from '../cursor.ts';
import type { ColumnMeta } from '../types.ts';
import { ClickhouseRequest } from './request.ts';
import { clickhouseType } from './types.ts';

/** Statements that return rows; every other one runs as a command (no output format to append). */
const ROW_STATEMENTS = new Set(['SELECT', 'WITH', 'SHOW', 'DESCRIBE', 'DESC', 'EXPLAIN', 'EXISTS', 'VALUES']);

export function returnsRows(text: string): boolean {
  const first = codeTokens(tokenize(text, 'clickhouse'))[0];
  return first === undefined || first.text === '(' || ROW_STATEMENTS.has(first.word);
}

/** The client appends `FORMAT ...` after the text: a statement's own closing `;` would end it before that. */
export function withoutFinalSemicolon(text: string): string {
  const tokens = codeTokens(tokenize(text, 'clickhouse'));
  const last = tokens[tokens.length - 1];
  return last?.kind === 'punct' && last.text === ';' ? text.slice(0, last.start) : text;
}

/** `{p1:Type}` placeholders take their values by name: `p1` is the first value. */
export function queryParams(values: unknown[]): Record<string, unknown> {
  return Object.fromEntries(values.map((value, i) => [`p${i + 1}`, value]));
}

/**
 * One statement over HTTP as `JSONCompactEachRowWithNamesAndTypes`, read from
 * the response as the consumer pulls (the socket's own backpressure holds
 * the server). Cancelling aborts the request and kills the query by its id.
 */
export class ClickhouseStatement extends ClickhouseRequest implements StatementSource {
  private rows: AsyncIterator<Row[]> | null = null;
  private pending: Row[] = [];
  private converts: ((value: unknown) => Value)[] = [];
  private done = false;

  async start(): Promise<ColumnMeta[]> {
    const common = {
      query: withoutFinalSemicolon(this.request.text),
      query_params: queryParams(this.request.values),
      query_id: this.queryId,
      abort_signal: this.abort.signal,
      clickhouse_settings: this.settings(),
    };
    if (!returnsRows(this.request.text)) {
      await this.driver.client.command(common);
      this.done = true;
      return [];
    }
    const result = await this.driver.client.query({ ...common, format: 'JSONCompactEachRowWithNamesAndTypes' });
    this.stream = result.stream() as unknown as Readable;
    this.rows = (this.stream as unknown as AsyncIterable<Row[]>)[Symbol.asyncIterator]();
    const names = (await this.nextRow()) as string[] | null;
    const types = ((await this.nextRow()) as string[] | null) ?? [];
    if (names === null) {
      this.done = true;
      return [];
    }
    const described = types.map((type) => clickhouseType(type));
    this.converts = described.map((t) => t.convert);
    return names.map((name, i) => ({ name, dbType: types[i] ?? '', kind: described[i]?.kind ?? 'unknown' }));
  }

  /** The next line of the response, parsed; null at its end. */
  private async nextRow(): Promise<unknown[] | null> {
    while (this.pending.length === 0) {
      if (this.done || !this.rows) return null;
      const next = await this.rows.next();
      if (next.done) {
        this.done = true;
        return null;
      }
      this.pending = next.value;
    }
    return JSON.parse(this.pending.shift()!.text) as unknown[];
  }

  async pull(): Promise<Value[][] | null> {
    const batch: Value[][] = [];
    const converts = this.converts;
    while (batch.length < this.request.batchSize) {
      const row = await this.nextRow();
      if (row === null) break;
      for (let i = 0; i < converts.length; i++) row[i] = converts[i](row[i]);
      batch.push(row as Value[]);
    }
    return batch.length > 0 ? batch : null;
  }

  async finish(outcome: Outcome, interrupted: boolean): Promise<void> {
    // Closed before its end: stopped on the server as well.
    if (outcome !== 'done' && !this.done) await this.stop().catch(() => {});
    await this.release(interrupted);
  }
}
