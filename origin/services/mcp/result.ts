import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { LeftOut } from '../run/window.ts';

/** Rows a tool call read, at most `cap` of them. */
export interface RowsOutcome {
  rows: Record<string, unknown>[];
  /** More rows exist than were returned. */
  truncated: boolean;
  /** How many, when counted. */
  leftOut: LeftOut | null;
  cap: number;
  /** How to fetch every row (a `/q` URL with `stream=true`, or the `/execute_sql` call); said when truncated. */
  fetchAll: string;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function leftOutText(leftOut: LeftOut | null): string {
  if (!leftOut) return 'the rows after them were left out';
  return leftOut.more ? `more than ${plural(leftOut.rows, 'row')} after them were left out` : `${plural(leftOut.rows, 'more row')} ${leftOut.rows === 1 ? 'was' : 'were'} left out`;
}

/**
 * A tool's rows for an agent: `structuredContent` holds them (`rows`,
 * `row_count`, `truncated`, and when cut `rows_left_out` (a number, or
 * `"more than N"`), a `note` and `fetch_all`); the text
 * content is a short summary, then the same rows as JSON for clients that
 * only pass text on (the MCP specification asks for both).
 */
export function rowsResult(what: string, outcome: RowsOutcome): CallToolResult {
  const count = outcome.rows.length;
  const note = outcome.truncated
    ? `Only the first ${plural(count, 'row')} are returned (the limit here is ${outcome.cap}); ${leftOutText(outcome.leftOut)}. To fetch them all: ${outcome.fetchAll}`
    : null;
  const summary = note ? `${what}: ${note}` : `${what}: ${plural(count, 'row')}.`;
  return {
    content: [
      { type: 'text', text: summary },
      { type: 'text', text: JSON.stringify(outcome.rows) },
    ],
    structuredContent: {
      rows: outcome.rows,
      row_count: count,
      truncated: outcome.truncated,
      ...(note ? { rows_left_out: leftOutValue(outcome.leftOut), note, fetch_all: outcome.fetchAll } : {}),
    },
  };
}

function leftOutValue(leftOut: LeftOut | null): number | string | null {
  if (!leftOut) return null;
  return leftOut.more ? `more than ${leftOut.rows}` : leftOut.rows;
}

/** A value as text content plus the same value as structured content. */
export function valueResult(summary: string, value: Record<string, unknown>): CallToolResult {
  return {
    content: [
      { type: 'text', text: summary },
      { type: 'text', text: JSON.stringify(value) },
    ],
    structuredContent: value,
  };
}

/**
 * A refused or failed call as a tool error (`isError`), which the agent
 * sees and can correct: the message, then one line per parameter problem
 * (every problem at once, as `/q` lists them in `errors`).
 */
export function errorResult(message: string, extras: { errors?: Record<string, string>; detail?: unknown } = {}): CallToolResult {
  const lines = [message];
  for (const [name, problem] of Object.entries(extras.errors ?? {})) lines.push(`- ${name}: ${problem}`);
  if (typeof extras.detail === 'string' && extras.detail !== '') lines.push(extras.detail);
  return {
    isError: true,
    content: [{ type: 'text', text: lines.join('\n') }],
    structuredContent: { error: message, ...(extras.errors ? { errors: extras.errors } : {}), ...(typeof extras.detail === 'string' ? { detail: extras.detail } : {}) },
  };
}
