import { describe, expect, it } from 'vitest';
import { adminMcp, textOf } from './client.ts';

/**
 * An MCP tool's answer is bounded in bytes (SLUICE_MCP_MAX_BYTES, 1 MiB by
 * default) as it is in rows: a result of huge rows is cut, answered at once
 * with `truncated` and the note, and the run stops reading the cursor there.
 */

const MAX_BYTES = 2 ** 20;
const mcp = adminMcp();

type Rows = { rows: Array<Record<string, unknown>>; row_count: number; truncated: boolean; rows_left_out: unknown; note: string; fetch_all: string };

describe('the bytes of an MCP answer', () => {
  it('cuts 300 rows of 1 MB each at SLUICE_MCP_MAX_BYTES and answers promptly, with the note', async () => {
    const started = performance.now();
    const result = await mcp.client.call('execute_sql', { connection_name: mcp.env.pg, sql: "select repeat('x', 1000000) as big from generate_series(1, 300)" });
    const tookMs = performance.now() - started;
    expect(result.isError, textOf(result).slice(0, 300)).toBeFalsy();
    const content = result.structuredContent as Rows;
    expect(content.truncated).toBe(true);
    expect(content.row_count).toBe(content.rows.length);
    expect(content.note).toContain('SLUICE_MCP_MAX_BYTES');
    expect(content.fetch_all).toContain('/execute_sql?stream=true');
    expect(textOf(result)).toContain(content.note);
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(MAX_BYTES);
    // Loose: reading all 300 MB and serialising it took minutes, or never ended.
    expect(tookMs).toBeLessThan(30_000);
  }, 120_000);

  it('keeps as many rows as fit, in order, and says the rest were left out', async () => {
    const result = await mcp.client.call('execute_sql', { connection_name: mcp.env.pg, sql: "select i, repeat('y', 10000) as pad from generate_series(1, 300) i order by i" });
    const content = result.structuredContent as Rows;
    expect(content.truncated).toBe(true);
    expect(content.rows.length).toBeGreaterThan(10);
    expect(content.rows.length).toBeLessThan(300);
    expect(content.rows.map((row) => row.i)).toEqual(content.rows.map((_, index) => index + 1));
    expect(content.note).toMatch(/^Only the first \d+ rows are returned \(the limit here is 1048576 bytes, SLUICE_MCP_MAX_BYTES\); the rows after them were left out\./);
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(MAX_BYTES);
  }, 120_000);

  it('cuts a csv answer to fit too: whole lines, in order, the header kept, and says what was left out', async () => {
    const result = await mcp.client.call('execute_sql', { connection_name: mcp.env.pg, sql: "select i, repeat('y', 10000) as pad from generate_series(1, 300) i order by i", format: 'csv' });
    const content = result.structuredContent as { columns: string[]; rows: unknown[][]; row_count: number; truncated: boolean; note: string; size: { bytes: number } };
    expect(content.truncated).toBe(true);
    expect(content.columns).toEqual(['i', 'pad']);
    expect(content.rows.length).toBeGreaterThan(10);
    expect(content.rows.length).toBeLessThan(300);
    expect(content.rows.map((row) => row[0])).toEqual(content.rows.map((_, index) => index + 1));
    expect(content.note).toMatch(/^Only the first \d+ rows are returned \(the limit here is 1048576 bytes, SLUICE_MCP_MAX_BYTES\); the rows after them were left out\./);
    const text = (result.content[1] as { text: string }).text;
    expect(text.split('\r\n')).toEqual(['i,pad', ...content.rows.map((row) => `${row[0]},${row[1]}`), '']);
    expect(content.size.bytes).toBe(Buffer.byteLength(text));
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(MAX_BYTES);
  }, 120_000);

  it('leaves a small answer whole', async () => {
    const result = await mcp.client.call('execute_sql', { connection_name: mcp.env.pg, sql: 'select id, title from films order by id' });
    expect(result.structuredContent).toMatchObject({ row_count: 3, truncated: false });
  });
});
