/**
 * json: one array of objects, keys in column order (duplicate names made
 * unique), one object per line: `[{"a":1},\n{"a":2}]`. Streams like the others;
 * only the route decides to page it.
 */
import type { ColumnMeta } from '../drivers/types.ts';
import type { Value } from '../values.ts';
import type { Serializer } from './index.ts';
import { jsonValue } from './json-text.ts';
import { uniqueColumnNames } from '../drivers/column-names.ts';
import { textChunks } from './text.ts';

/** `{"a":…,"b":…}` renderer for a fixed set of column names. */
export function jsonObjectRenderer(columns: ColumnMeta[]): (row: Value[]) => string {
  const names = uniqueColumnNames(columns.map((c) => c.name));
  const keys = names.map((name, i) => `${i === 0 ? '{' : ','}${JSON.stringify(name)}:`);
  const n = keys.length;
  if (n === 0) return () => '{}';
  return (row) => {
    let out = '';
    for (let i = 0; i < n; i++) out += keys[i] + jsonValue(row[i] ?? null);
    return `${out}}`;
  };
}

export const json: Serializer = {
  contentType: 'application/json',
  extension: 'json',
  serialize(columns, rows) {
    const render = jsonObjectRenderer(columns);
    return textChunks('[', rows, (row, i) => (i === 0 ? render(row) : `,\n${render(row)}`), ']\n');
  },
};
