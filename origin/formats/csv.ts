/**
 * csv (RFC 4180): a header row, CRLF line ends, a field quoted when it holds a
 * comma, quote, CR or LF, quotes doubled.
 * NULL is an empty unquoted field; an empty string is written `""` so the two
 * stay distinguishable (the convention of PostgreSQL's COPY … CSV); both read
 * as empty in tools that do not care. Non-finite floats are `NaN`, `Infinity`,
 * `-Infinity`. No byte-order mark (the content type names the charset).
 */
import type { Value } from '../values.ts';
import type { Serializer } from './index.ts';
import { uniqueColumnNames } from '../drivers/column-names.ts';
import { textChunks, valueText } from './text.ts';

const NEEDS_QUOTES = /[",\r\n]/;

function field(text: string): string {
  if (text === '') return '""';
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function cell(v: Value): string {
  return v === null || v === undefined ? '' : field(valueText(v));
}

/** Cells already as text (null: NULL) as one csv line without its line end, written as the serializer writes them (MCP tool answers). */
export function csvLine(cells: readonly (string | null)[]): string {
  return cells.map((text) => (text === null ? '' : field(text))).join(',');
}

export const csv: Serializer = {
  contentType: 'text/csv; charset=utf-8',
  extension: 'csv',
  serialize(columns, rows) {
    const header = uniqueColumnNames(columns.map((c) => c.name)).map(field).join(',');
    const n = columns.length;
    return textChunks(`${header}\r\n`, rows, (row) => {
      let line = n > 0 ? cell(row[0]) : '';
      for (let i = 1; i < n; i++) line += `,${cell(row[i])}`;
      return `${line}\r\n`;
    }, '');
  },
};
