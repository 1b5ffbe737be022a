/**
 * markdown: a GitHub-flavoured table, for MCP tool answers only (no `/q`
 * format: a table is for reading, not for a program). A header row, the
 * delimiter row, one line per row. Inside a cell `|` is written `\|` and a
 * line break `<br>`, the two things that would end a cell or the row; NULL
 * and the empty string are both an empty cell.
 */

const SPECIAL = /[|\r\n]/;
const BREAKS = /\r\n|\r|\n/g;

export function markdownCell(text: string | null): string {
  if (text === null) return '';
  return SPECIAL.test(text) ? text.replace(/\|/g, '\\|').replace(BREAKS, '<br>') : text;
}

/** One row of cells already as text (null: NULL), without its line end. */
export function markdownLine(cells: readonly (string | null)[]): string {
  return `| ${cells.map(markdownCell).join(' | ')} |`;
}

/** The header and delimiter rows, each ending its line; nothing for a result without columns. */
export function markdownHead(names: readonly string[]): string {
  if (names.length === 0) return '';
  return `${markdownLine(names)}\n|${names.map(() => ' --- |').join('')}\n`;
}
