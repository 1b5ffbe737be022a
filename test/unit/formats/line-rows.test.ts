import { describe, expect, it } from 'vitest';
import type { LineFormat } from '../../../origin/drivers/types.ts';
import { capLines } from '../../../origin/formats/line-rows.ts';

async function* chunked(text: string, size: number) {
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function run(text: string, format: LineFormat, max: number | undefined, size: number) {
  const cap = capLines(chunked(text, size), format, max);
  const parts: Buffer[] = [];
  for await (const chunk of cap.chunks) parts.push(Buffer.from(chunk));
  return { text: Buffer.concat(parts).toString(), rows: cap.rows(), capped: cap.capped() };
}

const CSV = ['1,"a\r\nb"\r\n', '2,"say ""hi"", \n then"\r\n', '3,plain\r\n', '4,""\r\n'];
const NDJSON = ['{"a":"x\\ny"}\n', '{"a":"\\""}\n', '{"a":1}\n'];

describe('capLines: rows in finished lines', () => {
  for (const size of [1, 2, 3, 7, 64 * 1024]) {
    it(`csv: a line feed inside quotes is part of the value (chunks of ${size} bytes)`, async () => {
      expect(await run(CSV.join(''), 'csv', undefined, size)).toEqual({ text: CSV.join(''), rows: 4, capped: false });
      expect(await run(CSV.join(''), 'csv', 2, size)).toEqual({ text: CSV.slice(0, 2).join(''), rows: 2, capped: true });
      expect(await run(CSV.join(''), 'csv', 4, size)).toEqual({ text: CSV.join(''), rows: 4, capped: false });
      expect(await run(CSV.join(''), 'csv', 0, size)).toEqual({ text: '', rows: 0, capped: true });
    });

    it(`ndjson and tsv: one line a row (chunks of ${size} bytes)`, async () => {
      expect(await run(NDJSON.join(''), 'ndjson', 1, size)).toEqual({ text: NDJSON[0], rows: 1, capped: true });
      expect(await run('a\tb\\nc\nd\te\n', 'tsv', undefined, size)).toEqual({ text: 'a\tb\\nc\nd\te\n', rows: 2, capped: false });
    });
  }

  it('csv: quoted fields far apart in one chunk, cut at every row', async () => {
    const rows = Array.from({ length: 200 }, (_, i) => (i % 50 === 7 ? `${i},"x,\n""${i}"""\r\n` : `${i},plain ${i}\r\n`));
    for (const size of [13, 64 * 1024]) {
      for (const max of [1, 7, 8, 57, 58, 199, 200]) {
        expect(await run(rows.join(''), 'csv', max, size)).toEqual({ text: rows.slice(0, max).join(''), rows: max, capped: max < 200 });
      }
    }
  });

  it('no bytes: no rows, not capped', async () => {
    expect(await run('', 'csv', 0, 10)).toEqual({ text: '', rows: 0, capped: false });
  });
});
