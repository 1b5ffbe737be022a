import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FormatEnv, post, startFormatEnv, valuesSql } from '../formats/fixture.ts';
import { duckRead, hyparquetRead, readBack } from '../formats/readers.ts';
import { DRIVERS } from '../query/fixture.ts';
import { parseCsv, unescapeTsv } from '../unit/formats/parsers.ts';
import { STREAM_FORMATS, seriesSql, streamed } from './fixture.ts';

/**
 * `stream=true` in csv, tsv, ndjson and parquet on every database: a download
 * (`Content-Disposition: attachment; filename=…`) holding the whole result —
 * far more rows than SLUICE_MAX_PAGE_SIZE — and values written by the same
 * rules as the paged answer.
 */

const MAX_PAGE_SIZE = 1000;
const ROWS = 50_000;

let env: FormatEnv;
beforeAll(async () => {
  env = await startFormatEnv({ SLUICE_MAX_PAGE_SIZE: String(MAX_PAGE_SIZE) });
});
afterAll(async () => {
  await env?.close();
});

const expected = Array.from({ length: ROWS }, (_, i) => [String(i + 1), `row ${i + 1}`, 'series']);

describe.each(DRIVERS)('%s', (driver) => {
  const series = () => ({ sql: seriesSql(driver, ROWS), connection_name: env.conn[driver] });
  const values = () => ({ sql: valuesSql(driver), connection_name: env.conn[driver] });

  it(`csv: all ${ROWS} rows (SLUICE_MAX_PAGE_SIZE=${MAX_PAGE_SIZE}), RFC 4180`, async () => {
    const bytes = await streamed(env.origin, series(), 'csv');
    const [header, ...records] = parseCsv(bytes.toString('utf8'));
    expect(header.map((f) => f.value)).toEqual(['n', 'label', 'tag']);
    expect(records.length).toBe(ROWS);
    expect(records.map((r) => r.map((f) => f.value))).toEqual(expected);
  });

  it(`tsv: all ${ROWS} rows`, async () => {
    const lines = (await streamed(env.origin, series(), 'tsv')).toString('utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines[0]).toBe('n\tlabel\ttag');
    expect(lines.length - 1).toBe(ROWS);
    expect(lines.slice(1).map((l) => l.split('\t').map(unescapeTsv))).toEqual(expected);
  });

  it(`ndjson: all ${ROWS} rows, one object a line`, async () => {
    const text = (await streamed(env.origin, series(), 'ndjson')).toString('utf8');
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.slice(0, -1).split('\n');
    expect(lines.length).toBe(ROWS);
    expect(lines[0]).toBe('{"n":1,"label":"row 1","tag":"series"}');
    expect(lines.map((l) => Object.values(JSON.parse(l)).map(String))).toEqual(expected);
  });

  it(`parquet: all ${ROWS} rows, typed, read by hyparquet and DuckDB`, async () => {
    const bytes = await streamed(env.origin, series(), 'parquet');
    const back = await hyparquetRead(bytes);
    expect(back.names).toEqual(['n', 'label', 'tag']);
    expect(back.numRows).toBe(BigInt(ROWS));
    expect(back.rows.map((r) => [String(r.n), r.label, r.tag])).toEqual(expected);
    const duck = await duckRead(env.dir, bytes, []);
    expect(duck.types).toEqual({ n: 'BIGINT', label: 'VARCHAR', tag: 'VARCHAR' });
    expect(duck.count).toBe(ROWS);
  });

  it.each(STREAM_FORMATS)('%s: the values table streams exactly as it pages', async (format) => {
    const bytes = await streamed(env.origin, values(), format);
    const paged = await post(env.origin, values(), { format });
    expect(paged.status).toBe(200);
    if (format === 'parquet') {
      const asResponse = { ...paged, bytes, text: '' };
      expect(await readBack('parquet', asResponse)).toEqual(await readBack('parquet', paged));
      const [a, b] = [await duckRead(env.dir, bytes, []), await duckRead(env.dir, paged.bytes, [])];
      expect(a.types).toEqual(b.types);
      expect(a.count).toBe(b.count);
    } else {
      expect(bytes.toString('utf8')).toBe(paged.text);
    }
  });
});
