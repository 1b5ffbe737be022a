import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { LeftOut } from '../run/window.ts';
import type { FormattedRows } from './formatted-rows.ts';
import type { WholeAnswer } from './whole-answer.ts';

/** Rows a tool call read, at most `cap` of them. */
export interface RowsOutcome {
  rows: FormattedRows;
  /** More rows exist than were returned. */
  truncated: boolean;
  /** How many, when counted. */
  leftOut: LeftOut | null;
  cap: number;
  /** The page ended at its byte budget (the rows after it were not read). */
  cutAtBytes: boolean;
  /** Bytes the whole answer may take (SLUICE_MCP_MAX_BYTES). */
  maxBytes: number;
  /** How to fetch every row (a `/q` URL with `stream=true`, or the `/execute_sql` call); asked for only when truncated. */
  fetchAll: () => string;
  /** A cut answer's every row as a stored result, when it could be made. */
  whole?: WholeAnswer | null;
}

/** Room left in SLUICE_MCP_MAX_BYTES for the JSON-RPC message (or event) around the tool's result. */
const ENVELOPE_BYTES = 1024;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function leftOutText(leftOut: LeftOut | null): string {
  if (!leftOut) return 'the rows after them were left out';
  return leftOut.more ? `more than ${plural(leftOut.rows, 'row')} after them were left out` : `${plural(leftOut.rows, 'more row')} ${leftOut.rows === 1 ? 'was' : 'were'} left out`;
}

/**
 * The size of a rows text item, so an agent can choose a smaller page or
 * format next time: its UTF-8 bytes, and tokens estimated as a quarter of
 * them (an estimate: tokenizers differ, and digits or punctuation take more).
 */
export function textSize(text: string): { bytes: number; estimated_tokens: number } {
  const bytes = Buffer.byteLength(text);
  return { bytes, estimated_tokens: Math.ceil(bytes / 4) };
}

/**
 * A tool's rows for an agent: `structuredContent` holds them (`rows`, or
 * `columns` and `rows` as arrays in a compact format, `row_count`,
 * `truncated`, and when cut `rows_left_out` (a number, or `"more than
 * N"`), a `note` and `fetch_all`; `size`); the text content is a short
 * summary, then the same rows in the call's format for clients that only
 * pass text on (the MCP specification asks for both). Rows are left out
 * from the end until the whole answer fits in `maxBytes`.
 */
export function rowsResult(what: string, outcome: RowsOutcome): CallToolResult {
  const budget = outcome.maxBytes - ENVELOPE_BYTES;
  const { rows } = outcome;
  const rowsText = rows.text(rows.count);
  let result = buildRows(what, outcome, rows.count, rowsText);
  if (!outcome.truncated && surelyFits(rowsText, rows.structuredBytes(), what, budget)) return result;
  let over = answerBytes(result) - budget;
  if (over <= 0) return result;
  const costs = rows.rowCosts();
  let kept = rows.count;
  while (over > 0) {
    while (over > 0 && kept > 0) over -= costs[--kept];
    const dropped = rows.count - kept;
    const leftOut = outcome.leftOut && !outcome.cutAtBytes ? { rows: outcome.leftOut.rows + dropped, more: outcome.leftOut.more } : null;
    result = buildRows(what, { ...outcome, truncated: true, cutAtBytes: true, leftOut }, kept, rows.text(kept));
    over = answerBytes(result) - budget;
    // The note itself no longer fits: nothing more to leave out.
    if (kept === 0) break;
  }
  return result;
}

const answerBytes = (result: CallToolResult): number => Buffer.byteLength(JSON.stringify(result));

/**
 * Whether a whole answer fits without measuring it: its structured rows,
 * its rows text as a JSON string (escaping makes a byte at most six), the
 * summary as a string, and the fixed keys around them.
 */
function surelyFits(rowsText: string, structuredBytes: number, what: string, budget: number): boolean {
  return structuredBytes + 6 * Buffer.byteLength(rowsText) + 6 * Buffer.byteLength(what) + 512 <= budget;
}

function buildRows(what: string, outcome: RowsOutcome, count: number, rowsText: string): CallToolResult {
  const limit = outcome.cutAtBytes ? `${outcome.maxBytes} bytes, SLUICE_MCP_MAX_BYTES` : String(outcome.cap);
  const returned = count === 0 ? `No row is returned (the first alone passes the limit here, ${limit})` : `Only the first ${plural(count, 'row')} are returned (the limit here is ${limit})`;
  const fetchAll = outcome.truncated ? outcome.fetchAll() : null;
  const note = fetchAll === null ? null : `${returned}; ${leftOutText(outcome.leftOut)}. To fetch them all: ${fetchAll}`;
  const summary = note ? `${what}: ${note}` : `${what}: ${plural(count, 'row')}.`;
  const whole = outcome.truncated ? (outcome.whole ?? null) : null;
  return {
    content: [
      { type: 'text', text: summary },
      { type: 'text', text: rowsText },
      ...(whole ? [wholeLink(whole)] : []),
    ],
    structuredContent: {
      ...outcome.rows.structured(count),
      row_count: count,
      truncated: outcome.truncated,
      ...(note ? { rows_left_out: leftOutValue(outcome.leftOut), note, fetch_all: fetchAll } : {}),
      ...(whole ? { result: { id: whole.id, url: whole.url, expires_at: whole.expires_at, format: whole.format } } : {}),
      size: textSize(rowsText),
    },
  };
}

/** The whole answer as a link an agent hands to a tool that downloads: no key needed until it expires. */
function wholeLink(whole: WholeAnswer): CallToolResult['content'][number] {
  const more = whole.chunks === 1 ? 'every row' : 'its first chunk; GET /results/' + whole.id + ' with your key lists the others';
  return {
    type: 'resource_link',
    uri: whole.url,
    name: `${whole.id}-0.ndjson`,
    mimeType: 'application/x-ndjson',
    description: `The whole answer as ndjson (${more}), stored result ${whole.id}; the link needs no key and works until ${whole.expires_at}.`,
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
