import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, type FormatEnv, startFormatEnv } from '../formats/fixture.ts';
import { hyparquetRead } from '../formats/readers.ts';
import { readAll, startStream } from './fixture.ts';

/**
 * A statement that fails after rows were sent: the download just ends early
 * (cut short, or with a network error) — the rows before are intact and no
 * JSON error is appended to the file. The connection answers next.
 */

/** Rows 1..49999, then division by zero on PostgreSQL (generate_series streams in the select list). */
const FAILING = `SELECT CASE WHEN g < 50000 THEN g ELSE 1 / (g - g) END AS n
  FROM (SELECT generate_series(1, 100000) AS g) s`;

let env: FormatEnv;
beforeAll(async () => {
  env = await startFormatEnv();
});
afterAll(async () => {
  await env?.close();
});

describe('postgres', () => {
  const body = () => ({ sql: FAILING, connection_name: env.conn.postgres });

  async function failedDownload(format: string) {
    const { res } = await startStream(env.origin, body(), { format });
    // The failure comes after the first rows were read: the answer had started as a download.
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename=/);
    const outcome = await readAll(res);
    return { ...outcome, text: outcome.bytes.toString('utf8') };
  }

  it.each([
    ['csv', '\r\n', 'n'],
    ['tsv', '\n', 'n'],
    ['ndjson', '\n', null],
  ] as const)('%s: ends early with the rows before the failure, and no error appended', async (format, eol, header) => {
    const { text } = await failedDownload(format);
    expect(text).not.toMatch(/error|detail|division/i);
    const lines = text.split(eol);
    lines.pop(); // the tail after the last line end: empty, or a row cut short
    if (header !== null) expect(lines.shift()).toBe(header);
    const values = lines.map((line) => (format === 'ndjson' ? JSON.parse(line).n : Number(line)));
    expect(values.length).toBeGreaterThan(0);
    expect(values.length).toBeLessThan(50_000);
    expect(values).toEqual(Array.from({ length: values.length }, (_, i) => i + 1));
  });

  it('parquet: no readable file and no JSON error in the body', async () => {
    const { bytes, text, error } = await failedDownload('parquet');
    expect(text).not.toMatch(/"error"/);
    // Parquet is written whole before it is sent: nothing usable arrives.
    if (error === null) await expect(hyparquetRead(bytes)).rejects.toThrow();
  });

  it('the connection answers the next query', async () => {
    for (let i = 0; i < 6; i++) {
      const res = await post(env.origin, { sql: `SELECT ${i} AS x`, connection_name: env.conn.postgres }, { format: 'csv' });
      expect(res.status, res.text).toBe(200);
      expect(res.text).toBe(`x\r\n${i}\r\n`);
    }
  });
});
