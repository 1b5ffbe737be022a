/**
 * xml: `<?xml version="1.0" encoding="UTF-8"?><rows><row><col>…</col></row></rows>`.
 * - Element names come from the (unique) column names through
 *   `xmlElementName`, so any name gives well-formed XML; where the element
 *   name differs from the column name, every cell carries `name="<original>"`.
 *   A sanitised name that collides with another column's gets `_2`, `_3`…
 *   (a name valid as it is keeps it).
 * - NULL is an empty element with `xsi:nil="true"` (XML Schema's convention), so
 *   it stays distinct from the empty string `<col></col>`.
 * - Text is escaped (`&`, `<`, `>`; CR as `&#13;` so parsers do not fold it);
 *   characters XML 1.0 cannot represent at all (C0 controls except tab, LF and
 *   CR; U+FFFE/U+FFFF; unpaired surrogates) are replaced by U+FFFD.
 */
import type { Value } from '../values.ts';
import type { Serializer } from './index.ts';
import { uniqueColumnNames } from '../drivers/column-names.ts';
import { xmlElementNames } from './names.ts';
import { textChunks, valueText, xmlLegal } from './text.ts';

const TEXT_SPECIAL = /[&<>\r]/;
const TEXT_SPECIAL_ALL = /[&<>\r]/g;
const ATTR_SPECIAL_ALL = /[&<>"\t\n\r]/g;
const ENTITIES: Record<string, string> = {
  '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\t': '&#9;', '\n': '&#10;', '\r': '&#13;',
};

export function xmlText(text: string): string {
  const legal = xmlLegal(text);
  return TEXT_SPECIAL.test(legal) ? legal.replace(TEXT_SPECIAL_ALL, (c) => ENTITIES[c]) : legal;
}

export function xmlAttribute(text: string): string {
  return xmlLegal(text).replace(ATTR_SPECIAL_ALL, (c) => ENTITIES[c]);
}

export const xml: Serializer = {
  contentType: 'application/xml',
  extension: 'xml',
  serialize(columns, rows) {
    const names = uniqueColumnNames(columns.map((c) => c.name));
    const elements = xmlElementNames(names);
    const opens = names.map((name, i) => (elements[i] === name ? `<${name}` : `<${elements[i]} name="${xmlAttribute(name)}"`));
    const cellOpen = opens.map((open) => `${open}>`);
    const cellNil = opens.map((open) => `${open} xsi:nil="true"/>`);
    const cellClose = elements.map((element) => `</${element}>`);
    const n = names.length;
    const head = '<?xml version="1.0" encoding="UTF-8"?>\n<rows xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n';
    return textChunks(head, rows, (row: Value[]) => {
      let out = '<row>';
      for (let i = 0; i < n; i++) {
        const v = row[i];
        out += v === null || v === undefined ? cellNil[i] : cellOpen[i] + xmlText(valueText(v)) + cellClose[i];
      }
      return `${out}</row>\n`;
    }, '</rows>\n');
  },
};
