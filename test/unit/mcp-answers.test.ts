import { describe, expect, it } from 'vitest';
import type { ColumnMeta } from '../../origin/drivers/types.ts';
import { csv } from '../../origin/formats/csv.ts';
import { json } from '../../origin/formats/json.ts';
import { markdownCell, markdownHead, markdownLine } from '../../origin/formats/markdown.ts';
import { tsv } from '../../origin/formats/tsv.ts';
import { Decimal, type Value } from '../../origin/values.ts';
import { allowedValues } from '../../origin/services/mcp/allowed-values.ts';
import { TOOL_FORMATS, formattedRows } from '../../origin/services/mcp/formatted-rows.ts';
import { pageCells } from '../../origin/services/mcp/page-cells.ts';
import { type RowsOutcome, rowsResult, textSize } from '../../origin/services/mcp/result.ts';

/** The pure pieces of an MCP tool's rows answer (docs/guides/mcp.md, "Formats"). */

async function written(serializer: typeof csv, columns: ColumnMeta[], rows: Value[][]): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of serializer.serialize(columns, (async function* () { yield rows; })())) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

const columns = ['id', 'price', 'note', 'big', 'doc', 'empty', 'missing'].map((name) => ({ name }) as ColumnMeta);
const rows: Value[][] = [
  [1, new Decimal('10.50'), 'a, "quoted"\nline', 12345678901234567890n, null, '', null],
  [2, new Decimal('0.1000000000000000000001'), 'tab\there | pipe', -1n, null, 'x', null],
];

describe('a tool answer in a text format', () => {
  it('writes the cells of the JSON page exactly as /q?format=csv and tsv write the same values', async () => {
    const page = await written(json, columns, rows);
    expect(formattedRows('csv', page).text(2)).toBe(await written(csv, columns, rows));
    expect(formattedRows('tsv', page).text(2)).toBe(await written(tsv, columns, rows));
  });

  it('keeps a decimal’s digits and a bigint in the text, and gives the structured rows as JSON values once per column', async () => {
    const formatted = formattedRows('csv', await written(json, columns, rows));
    expect(formatted.text(1)).toContain(',10.50,');
    expect(formatted.text(1)).toContain(',12345678901234567890,');
    expect(formatted.structured(1)).toEqual({ columns: columns.map((c) => c.name), rows: [[1, 10.5, 'a, "quoted"\nline', 12345678901234567890, null, '', null]] });
  });

  it('reads a page whose rows differ in keys (documents), nested JSON whole, and an empty page as no columns', () => {
    const cells = pageCells('[{"a":1,"n":{"x":[1,"]"]}},\n{"b":"}\\"","a":2.50}]\n');
    expect(cells).toEqual({ columns: ['a', 'n', 'b'], cells: [['1', '{"x":[1,"]"]}', 'null'], ['2.50', 'null', '"}\\""']] });
    expect(pageCells('{"message":"No results returned"}')).toEqual({ columns: [], cells: [] });
    expect(formattedRows('markdown', '{"message":"No results returned"}').text(0)).toBe('');
  });

  it('markdown: a GitHub table, `|` escaped and line breaks as <br>', () => {
    expect(markdownCell('a|b')).toBe('a\\|b');
    expect(markdownCell('one\r\ntwo\nthree\rfour')).toBe('one<br>two<br>three<br>four');
    expect(markdownCell(null)).toBe('');
    expect(markdownHead(['id', 'a|b'])).toBe('| id | a\\|b |\n| --- | --- |\n');
    expect(markdownLine(['1', null])).toBe('| 1 |  |');
    expect(formattedRows('markdown', '[{"id":1,"t":"x|y\\nz"}]').text(1)).toBe('| id | t |\n| --- | --- |\n| 1 | x\\|y<br>z |\n');
  });
});

describe('the size of an answer', () => {
  it('is the text’s UTF-8 bytes and a quarter of them, rounded up, as tokens', () => {
    expect(textSize('')).toEqual({ bytes: 0, estimated_tokens: 0 });
    expect(textSize('abcde')).toEqual({ bytes: 5, estimated_tokens: 2 });
    expect(textSize('é'.repeat(4))).toEqual({ bytes: 8, estimated_tokens: 2 });
  });

  it('stays within the byte limit in every format, rows left out from the end, and says so', () => {
    const page = JSON.stringify(Array.from({ length: 400 }, (_, i) => ({ i, pad: 'é|,\t"'.repeat(100) })));
    for (const format of TOOL_FORMATS) {
      const outcome: RowsOutcome = { rows: formattedRows(format, page), truncated: false, leftOut: null, cap: 500, cutAtBytes: false, maxBytes: 65_536, fetchAll: () => 'GET /q/x' };
      const result = rowsResult('x', outcome);
      const content = result.structuredContent as { row_count: number; truncated: boolean; note: string; size: { bytes: number } };
      expect(Buffer.byteLength(JSON.stringify(result)), format).toBeLessThanOrEqual(65_536 - 1024);
      expect(content.truncated, format).toBe(true);
      expect(content.row_count, format).toBeGreaterThan(10);
      expect(content.note, format).toContain('SLUICE_MCP_MAX_BYTES');
      const text = result.content[1] as { text: string };
      expect(content.size.bytes, format).toBe(Buffer.byteLength(text.text));
    }
  });
});

describe('allowed values in a description', () => {
  it('names each enum’s first 20 values, then how many more', () => {
    expect(allowedValues({ id: { type: 'integer' } })).toBe('');
    expect(allowedValues({ mode: { enum: ['a', 'b'] }, n: { enum: [1, 2] } })).toBe('Allowed values: mode: "a", "b"; n: 1, 2.');
    const many = allowedValues({ code: { enum: Array.from({ length: 25 }, (_, i) => `c${i}`) } });
    expect(many).toContain('"c19" and 5 more.');
    expect(many).not.toContain('"c20"');
  });
});
