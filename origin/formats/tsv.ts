/**
 * tsv: a header row, fields separated by tabs, LF line ends. Following the
 * common TSV convention (PostgreSQL text COPY, MySQL, Hive), a backslash, tab,
 * LF and CR inside a value are written `\\`, `\t`, `\n`, `\r`; nothing else is
 * escaped. NULL and the empty string are both an empty field.
 */
import type { Value } from '../values.ts';
import type { Serializer } from './index.ts';
import { uniqueColumnNames } from '../drivers/column-names.ts';
import { textChunks, valueText } from './text.ts';

const SPECIAL = /[\\\t\n\r]/;
const SPECIAL_ALL = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

export function tsvEscape(text: string): string {
  return SPECIAL.test(text) ? text.replace(SPECIAL_ALL, (c) => ESCAPES[c]) : text;
}

function cell(v: Value): string {
  return v === null || v === undefined ? '' : tsvEscape(valueText(v));
}

/** Cells already as text (null: NULL) as one tsv line without its line end, written as the serializer writes them (MCP tool answers). */
export function tsvLine(cells: readonly (string | null)[]): string {
  return cells.map((text) => (text === null ? '' : tsvEscape(text))).join('\t');
}

export const tsv: Serializer = {
  contentType: 'text/tab-separated-values; charset=utf-8',
  extension: 'tsv',
  serialize(columns, rows) {
    const header = uniqueColumnNames(columns.map((c) => c.name)).map(tsvEscape).join('\t');
    const n = columns.length;
    return textChunks(`${header}\n`, rows, (row) => {
      let line = n > 0 ? cell(row[0]) : '';
      for (let i = 1; i < n; i++) line += `\t${cell(row[i])}`;
      return `${line}\n`;
    }, '');
  },
};
