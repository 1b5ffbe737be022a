import { csvLine } from '../../formats/csv.ts';
import { markdownHead, markdownLine } from '../../formats/markdown.ts';
import { tsvLine } from '../../formats/tsv.ts';
import { cellText, pageCells } from './page-cells.ts';

/** How a tool answers its rows (docs/guides/mcp.md, "Formats"): `json` as before, the others compact. */
export const TOOL_FORMATS = ['json', 'csv', 'tsv', 'markdown'] as const;
export type ToolFormat = (typeof TOOL_FORMATS)[number];

export const FORMAT_PROBLEM = `must be one of ${TOOL_FORMATS.join(', ')}`;

export const isToolFormat = (value: unknown): value is ToolFormat => (TOOL_FORMATS as readonly unknown[]).includes(value);

/**
 * A page's rows as a tool format writes them, for its first `kept` rows
 * (an answer over its byte limit keeps fewer): the text content item, and
 * the rows of `structuredContent`.
 */
export interface FormattedRows {
  count: number;
  text(kept: number): string;
  structured(kept: number): Record<string, unknown>;
  /** Bytes each row adds to the answer: its text inside the answer's JSON string, and its structured copy. */
  rowCosts(): number[];
  /** Bytes of every structured row as JSON, at most. */
  structuredBytes(): number;
}

const bytes = (text: string) => Buffer.byteLength(text);

/** The rows of a JSON page (`body`, its text) in `format`. */
export function formattedRows(format: ToolFormat, body: string): FormattedRows {
  if (format === 'json') {
    const parsed: unknown = body === '' ? null : JSON.parse(body);
    return jsonRows(Array.isArray(parsed) ? parsed : []);
  }
  return compactRows(format, body);
}

/** `json`: the text is the rows as JSON objects, and `structuredContent.rows` the same objects. */
function jsonRows(rows: Record<string, unknown>[]): FormattedRows {
  let whole: string | undefined;
  const text = (kept: number) => (kept === rows.length ? (whole ??= JSON.stringify(rows)) : JSON.stringify(rows.slice(0, kept)));
  return {
    count: rows.length,
    text,
    structured: (kept) => ({ rows: rows.slice(0, kept) }),
    // Each row is in the answer twice: as JSON, and as JSON inside the text's string.
    rowCosts: () =>
      rows.map((row) => {
        const json = JSON.stringify(row);
        return bytes(json) + bytes(JSON.stringify(json)) + 2;
      }),
    structuredBytes: () => bytes(text(rows.length)),
  };
}

const LINES: Record<Exclude<ToolFormat, 'json'>, { line: (cells: (string | null)[]) => string; end: string; head?: (names: string[]) => string }> = {
  csv: { line: csvLine, end: '\r\n' },
  tsv: { line: tsvLine, end: '\n' },
  markdown: { line: markdownLine, end: '\n', head: markdownHead },
};

/**
 * csv, tsv, markdown: the text is the header and one line per row, each
 * cell written as `/q?format=csv` (tsv) writes it; `structuredContent`
 * names the columns once and gives each row as an array. A page without
 * rows names no columns (the page holds none), so its text is empty.
 */
function compactRows(format: Exclude<ToolFormat, 'json'>, body: string): FormattedRows {
  const { columns, cells } = pageCells(body);
  const writer = LINES[format];
  const head = columns.length === 0 ? '' : writer.head ? writer.head(columns) : writer.line(columns) + writer.end;
  const lines = cells.map((row) => writer.line(row.map(cellText)) + writer.end);
  const values = cells.map((row) => row.map((cell) => JSON.parse(cell) as unknown));
  return {
    count: cells.length,
    text: (kept) => head + lines.slice(0, kept).join(''),
    structured: (kept) => ({ columns, rows: values.slice(0, kept) }),
    rowCosts: () => lines.map((line, i) => bytes(JSON.stringify(line)) - 2 + bytes(JSON.stringify(values[i])) + 1),
    structuredBytes: () => bytes(JSON.stringify(values)) + bytes(JSON.stringify(columns)),
  };
}
