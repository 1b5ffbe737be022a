/**
 * The cells of a JSON page (services/run/page-body.ts: an array of objects
 * in column order, or `{message}` when empty) as the JSON text each was
 * written as. A tool answering in a text format writes them again as text,
 * and JSON.parse would lose what the page's writer kept: a decimal's digits
 * (`10.50`), a bigint past 2^53.
 */
export interface PageCells {
  /** Keys in the order first met (a document query's rows may differ). */
  columns: string[];
  /** Per row, per column, the cell's JSON text; `null` where the row has no such key. */
  cells: string[][];
}

/** Reads the page our own JSON writer made: well-formed, so nothing here validates it. */
export function pageCells(body: string): PageCells {
  const columns: string[] = [];
  const indexOf = new Map<string, number>();
  const cells: string[][] = [];
  let i = space(body, 0);
  if (body[i] !== '[') return { columns, cells };
  i = space(body, i + 1);
  while (body[i] === '{') {
    const row: string[] = [];
    i = space(body, i + 1);
    while (body[i] === '"') {
      const keyEnd = stringEnd(body, i);
      const key = JSON.parse(body.slice(i, keyEnd)) as string;
      const start = space(body, space(body, keyEnd) + 1);
      const end = valueEnd(body, start);
      let column = indexOf.get(key);
      if (column === undefined) {
        column = columns.length;
        indexOf.set(key, column);
        columns.push(key);
      }
      row[column] = body.slice(start, end);
      i = space(body, end);
      if (body[i] === ',') i = space(body, i + 1);
    }
    cells.push(row);
    i = space(body, i + 1);
    if (body[i] === ',') i = space(body, i + 1);
  }
  for (const row of cells) for (let c = 0; c < columns.length; c++) row[c] ??= 'null';
  return { columns, cells };
}

/** A cell's text as the csv and tsv writers take it (formats/text.ts `valueText`): a string unquoted, NULL as null, anything else as written. */
export function cellText(json: string): string | null {
  if (json === 'null') return null;
  return json[0] === '"' ? (JSON.parse(json) as string) : json;
}

function space(text: string, i: number): number {
  while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  return i;
}

/** Past the closing quote of the string starting at `i`. */
function stringEnd(text: string, i: number): number {
  let j = i + 1;
  while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
  return j + 1;
}

/** Past the value starting at `i`: a string, an object or array (nested JSON), or a literal. */
function valueEnd(text: string, i: number): number {
  if (text[i] === '"') return stringEnd(text, i);
  if (text[i] === '{' || text[i] === '[') {
    let depth = 0;
    let j = i;
    while (j < text.length) {
      const c = text[j];
      if (c === '"') {
        j = stringEnd(text, j);
        continue;
      }
      if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') depth--;
      j++;
      if (depth === 0) return j;
    }
    return j;
  }
  let j = i;
  while (j < text.length && !',}] \n\r\t'.includes(text[j])) j++;
  return j;
}
