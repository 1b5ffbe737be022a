import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { carriedAsIs, toolName } from '../../origin/services/mcp/names.ts';

/** The documented rule mapping saved-query names to MCP tool names (docs/guides/mcp.md, "Tool names"). */
const hash8 = (name: string) => createHash('sha256').update(name).digest('hex').slice(0, 8);

describe('tool names', () => {
  it('are the query name when MCP can carry it', () => {
    for (const name of ['films', 'sales.by_region', 'top-10', 'A_b.c-D']) expect(toolName(name)).toBe(name);
  });

  it('map other names: each other character to _, then _ and 8 hex of the name’s SHA-256', () => {
    expect(toolName('top films')).toBe(`top_films_${hash8('top films')}`);
    expect(toolName('café')).toBe(`caf__${hash8('café')}`);
    expect(toolName('top films')).not.toBe(toolName('top_films'));
  });

  it('never give a query a built-in tool’s name, and keep to 128 characters', () => {
    expect(toolName('execute_sql')).toBe(`execute_sql_${hash8('execute_sql')}`);
    expect(carriedAsIs('list_tables')).toBe(false);
    const long = 'x'.repeat(100) + ' ' + 'y'.repeat(100);
    expect(toolName(long)).toHaveLength(128);
    expect(toolName('z'.repeat(129))).toHaveLength(128);
  });
});
