import { createHash } from 'node:crypto';

/** The tools every caller who may run ad-hoc SQL on some connection gets, beside its saved queries. */
export const BUILTIN_TOOLS = ['list_connections', 'list_tables', 'execute_sql'] as const;
export type BuiltinTool = (typeof BUILTIN_TOOLS)[number];

/** What MCP tool names may hold (the MCP specification's rule: 1-128 of these characters). */
const CARRIED = /^[A-Za-z0-9_.-]{1,128}$/;
const OUTSIDE = /[^A-Za-z0-9_.-]/g;

export const isBuiltinTool = (name: string): name is BuiltinTool => (BUILTIN_TOOLS as readonly string[]).includes(name);

/**
 * The tool name of a saved query (docs/guides/mcp.md, "Tool names"): the
 * query's own name when MCP can carry it (letters, digits, `_`, `-`, `.`)
 * and it is not a built-in tool's; otherwise every other character (a space,
 * a letter outside ASCII) becomes `_`, cut to 119 characters, and `_` plus
 * the first 8 hex digits of the SHA-256 of the query's name are added, so
 * two names that differ only there stay two tools. The same query always
 * has the same tool name, whoever lists it.
 */
export function toolName(query: string): string {
  if (carriedAsIs(query)) return query;
  const hash = createHash('sha256').update(query).digest('hex').slice(0, 8);
  return `${query.replace(OUTSIDE, '_').slice(0, 119)}_${hash}`;
}

/** A tool name that is a query's own name: found without listing anything. */
export const carriedAsIs = (name: string): boolean => CARRIED.test(name) && !isBuiltinTool(name);
