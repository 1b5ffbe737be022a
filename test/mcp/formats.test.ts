import { beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ADMIN_KEY, saveQuery } from '../grants/fixture.ts';
import { unique } from '../harness/unique.ts';
import { adminMcp } from './client.ts';

/**
 * Answers sized for agents (docs/guides/mcp.md, "Formats"): every tool that
 * answers rows takes `format` (json, csv, tsv, markdown); the text item
 * carries the rows as `/q?format=csv` (tsv) writes them, `structuredContent`
 * turns compact (column names once), and `size` gives the text's bytes and
 * estimated tokens. Descriptions name each parameter's allowed values.
 */

const mcp = adminMcp();
const tag = unique('f').replace(/-/g, '_');
const TRICKY = `tricky_${tag}`;
const WIDE = `wide_${tag}`;
const CHOICES = `choices_${tag}`;
const ROWS_TOOLS = [TRICKY, WIDE, CHOICES, 'execute_sql'];
const FORMATS = ['json', 'csv', 'tsv', 'markdown'];

// Decimals with trailing zeros, a quote, comma and line break, an empty string and a NULL: what csv and tsv must write as /q does.
const TRICKY_SQL =
  "select id, title, cast(id * 1.25 as numeric(6,2)) as price, case id when 1 then 'a, \"b\"' || chr(10) || 'c|d' when 2 then '' end as note, id = 2 as even from films order by id";
// 100 rows × 10 columns of the kinds a table holds: the page's measured example.
const WIDE_SQL =
  "select i as id, 'customer ' || i as name, 'user' || i || '@example.com' as email, case i % 3 when 0 then 'eu' when 1 then 'us' else 'apac' end as region, " +
  "case when i % 4 = 0 then 'shipped' else 'pending' end as status, round(i * 1.37, 2) as amount, i % 7 + 1 as quantity, date '2024-01-01' + cast(i as integer) as ordered_on, " +
  'i % 2 = 0 as paid, i * 13 % 1000 as score from generate_series(1, 100) as t(i) order by i';

type Compact = { columns: string[]; rows: unknown[][]; row_count: number; truncated: boolean; size: { bytes: number; estimated_tokens: number } };

const rowsText = (result: CallToolResult) => (result.content[1] as { text: string }).text;
const compact = (result: CallToolResult) => result.structuredContent as Compact;

async function httpText(path: string, init: RequestInit = {}): Promise<string> {
  const res = await fetch(`${mcp.env.origin.url}${path}`, { ...init, headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json', ...init.headers } });
  expect(res.status).toBe(200);
  return res.text();
}

beforeAll(async () => {
  const pg = { connection_name: mcp.env.pg };
  await saveQuery(mcp.env.origin, TRICKY, { ...pg, sql: TRICKY_SQL });
  await saveQuery(mcp.env.origin, WIDE, { ...pg, sql: WIDE_SQL });
  await saveQuery(mcp.env.origin, CHOICES, {
    ...pg,
    sql: 'select id from films where :mode in (\'a\', \'b\') and :code is not null',
    parameters: { mode: { type: 'string', enum: ['a', 'b'] }, code: { type: 'string', enum: Array.from({ length: 25 }, (_, i) => `c${i}`) } },
  });
});

describe('the format argument', () => {
  it('is in the input schema of every tool that answers rows, and only there', async () => {
    const tools = await mcp.client.tools();
    for (const name of ROWS_TOOLS) {
      const format = (tools.find((tool) => tool.name === name)!.inputSchema.properties as Record<string, { enum?: unknown[]; default?: unknown }>).format;
      expect(format, name).toMatchObject({ type: 'string', enum: FORMATS, default: 'json' });
    }
    for (const name of ['list_connections', 'list_tables']) expect(tools.find((tool) => tool.name === name)!.inputSchema.properties).not.toHaveProperty('format');
  });

  it('csv: the text is what /q/<name>?format=csv answers, and structuredContent is compact', async () => {
    const result = await mcp.client.call(TRICKY, { format: 'csv' });
    expect(result.isError).toBeFalsy();
    expect(rowsText(result)).toBe(await httpText(`/q/${TRICKY}?format=csv`));
    expect(rowsText(result)).toContain(',1.25,"a, ""b""\nc|d",false\r\n2,Beta,2.50,"",true\r\n');
    expect(compact(result)).toEqual({
      columns: ['id', 'title', 'price', 'note', 'even'],
      rows: [
        [1, 'Alpha', 1.25, 'a, "b"\nc|d', false],
        [2, 'Beta', 2.5, '', true],
        [3, 'Gamma', 3.75, null, false],
      ],
      row_count: 3,
      truncated: false,
      size: { bytes: Buffer.byteLength(rowsText(result)), estimated_tokens: Math.ceil(Buffer.byteLength(rowsText(result)) / 4) },
    });
  });

  it('tsv: the text is what /q/<name>?format=tsv answers; execute_sql’s csv what /execute_sql?format=csv answers', async () => {
    expect(rowsText(await mcp.client.call(TRICKY, { format: 'tsv' }))).toBe(await httpText(`/q/${TRICKY}?format=tsv`));
    const sql = await mcp.client.call('execute_sql', { connection_name: mcp.env.pg, sql: TRICKY_SQL, format: 'csv' });
    expect(rowsText(sql)).toBe(await httpText('/execute_sql?format=csv', { method: 'POST', body: JSON.stringify({ sql: TRICKY_SQL, connection_name: mcp.env.pg }) }));
    expect(compact(sql).columns).toEqual(['id', 'title', 'price', 'note', 'even']);
  });

  it('markdown: a GitHub table, `|` escaped and a line break as <br>', async () => {
    const result = await mcp.client.call(TRICKY, { format: 'markdown' });
    expect(rowsText(result)).toBe(
      '| id | title | price | note | even |\n| --- | --- | --- | --- | --- |\n' +
        '| 1 | Alpha | 1.25 | a, "b"<br>c\\|d | false |\n| 2 | Beta | 2.50 |  | true |\n| 3 | Gamma | 3.75 |  | false |\n',
    );
    expect(compact(result).row_count).toBe(3);
  });

  it('json stays as it was, with its size; a bad format is a tool error naming it, on both kinds of tool', async () => {
    const plain = await mcp.client.call(TRICKY);
    const asked = await mcp.client.call(TRICKY, { format: 'json' });
    expect(asked).toEqual(plain);
    expect(plain.structuredContent).toMatchObject({ rows: [{ id: 1, title: 'Alpha', price: 1.25 }, {}, {}], row_count: 3, truncated: false });
    expect(JSON.parse(rowsText(plain))).toEqual((plain.structuredContent as { rows: unknown }).rows);
    expect((plain.structuredContent as Compact).size.bytes).toBe(Buffer.byteLength(rowsText(plain)));
    for (const result of [await mcp.client.call(TRICKY, { format: 'xml' }), await mcp.client.call('execute_sql', { connection_name: mcp.env.pg, sql: 'select 1 as one', format: 'CSV' })]) {
      expect(result.isError).toBe(true);
      expect((result.structuredContent as { errors: Record<string, string> }).errors).toEqual({ format: 'must be one of json, csv, tsv, markdown' });
      expect((result.content[0] as { text: string }).text).toContain('- format: must be one of json, csv, tsv, markdown');
    }
  });

  it('100 rows × 10 columns: csv takes less than 0.6 of the bytes of json', async () => {
    const sizes: Record<string, Compact['size']> = {};
    for (const format of FORMATS) {
      const result = await mcp.client.call(WIDE, { format });
      expect(result.structuredContent).toMatchObject({ row_count: 100, truncated: false });
      sizes[format] = compact(result).size;
    }
    expect(sizes.csv.bytes).toBeLessThan(0.6 * sizes.json.bytes);
    expect(sizes.tsv.bytes).toBeLessThan(0.6 * sizes.json.bytes);
    expect(sizes.markdown.bytes).toBeLessThan(sizes.json.bytes);
    expect(sizes.csv.estimated_tokens).toBe(Math.ceil(sizes.csv.bytes / 4));
  });
});

describe('descriptions', () => {
  it('name each parameter’s allowed values from its enum: the first 20, then how many more', async () => {
    const description = (await mcp.client.tools()).find((tool) => tool.name === CHOICES)!.description!;
    expect(description).toContain('Allowed values: ');
    expect(description).toContain('mode: "a", "b"');
    expect(description).toContain('code: "c0", "c1", "c2",');
    expect(description).toContain('"c19" and 5 more');
    expect(description).not.toContain('"c20"');
  });
});
