/** ndjson: one JSON object per row, each line `\n`-terminated; no output for no rows. */
import type { Serializer } from './index.ts';
import { jsonObjectRenderer } from './json.ts';
import { textChunks } from './text.ts';

export const ndjson: Serializer = {
  contentType: 'application/x-ndjson',
  extension: 'ndjson',
  serialize(columns, rows) {
    const render = jsonObjectRenderer(columns);
    return textChunks('', rows, (row) => `${render(row)}\n`, '');
  },
};
