/** Small strict parsers the format tests read output back with. */

export interface CsvField {
  value: string;
  quoted: boolean;
}

/** RFC 4180: CRLF records, quoted fields with doubled quotes; throws on anything else. */
export function parseCsv(text: string): CsvField[][] {
  const records: CsvField[][] = [];
  let i = 0;
  while (i < text.length) {
    const record: CsvField[] = [];
    for (;;) {
      let value = '';
      let quoted = false;
      if (text[i] === '"') {
        quoted = true;
        i++;
        for (;;) {
          if (i >= text.length) throw new Error('unterminated quoted field');
          if (text[i] === '"') {
            if (text[i + 1] === '"') {
              value += '"';
              i += 2;
            } else {
              i++;
              break;
            }
          } else {
            value += text[i++];
          }
        }
      } else {
        while (i < text.length && text[i] !== ',' && text[i] !== '\r') {
          if (text[i] === '"' || text[i] === '\n') throw new Error(`bare ${JSON.stringify(text[i])} at ${i}`);
          value += text[i++];
        }
      }
      record.push({ value, quoted });
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text.startsWith('\r\n', i)) {
        i += 2;
        break;
      }
      throw new Error(`expected , or CRLF at ${i}`);
    }
    records.push(record);
  }
  return records;
}

export function unescapeTsv(field: string): string {
  return field.replace(/\\(.)/g, (_, c: string) => {
    const map: Record<string, string> = { t: '\t', n: '\n', r: '\r', '\\': '\\' };
    if (!(c in map)) throw new Error(`unknown escape \\${c}`);
    return map[c];
  });
}

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

// XML 1.0 fifth edition productions (Char, NameStartChar, NameChar).
const ILLEGAL_CHAR = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const START = 'A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
const NAME = new RegExp(`[:${START}][:${START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040]*`, 'uy');
const REFERENCE = /&(?:(amp|lt|gt|quot|apos)|#([0-9]+)|#x([0-9a-fA-F]+));/y;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * A strict little XML parser: the declaration, then one element tree of
 * elements, attributes, text and character/entity references (no comments,
 * CDATA, DTD). Throws on anything not well-formed, including undeclared
 * namespace prefixes and characters outside XML 1.0's Char production.
 */
export function parseXml(source: string): XmlElement {
  if (ILLEGAL_CHAR.test(source)) throw new Error('character not allowed in XML 1.0');
  let i = 0;
  const fail = (what: string): never => {
    throw new Error(`${what} at ${i}: ${JSON.stringify(source.slice(i, i + 30))}`);
  };
  const skipSpace = () => {
    while (/[ \t\r\n]/.test(source[i] ?? '')) i++;
  };
  const expectText = (literal: string) => {
    if (!source.startsWith(literal, i)) fail(`expected ${literal}`);
    i += literal.length;
  };
  const name = (): string => {
    NAME.lastIndex = i;
    const m = NAME.exec(source);
    if (!m) return fail('expected a name');
    i += m[0].length;
    return m[0];
  };
  const reference = (): string => {
    REFERENCE.lastIndex = i;
    const m = REFERENCE.exec(source);
    if (!m) return fail('bad reference');
    i += m[0].length;
    if (m[1]) return ENTITIES[m[1]];
    const code = m[2] ? parseInt(m[2], 10) : parseInt(m[3], 16);
    const char = String.fromCodePoint(code);
    if (ILLEGAL_CHAR.test(char)) fail('reference to an illegal character');
    return char;
  };
  const namespaces: Set<string>[] = [];
  const checkPrefix = (qname: string) => {
    const colon = qname.indexOf(':');
    if (colon < 0) return;
    const prefix = qname.slice(0, colon);
    if (prefix === 'xmlns' || prefix === 'xml') return;
    if (!namespaces.some((scope) => scope.has(prefix))) fail(`undeclared prefix ${prefix}`);
  };

  const element = (): XmlElement => {
    expectText('<');
    const el: XmlElement = { name: name(), attrs: {}, children: [], text: '' };
    const scope = new Set<string>();
    for (;;) {
      const before = i;
      skipSpace();
      if (source.startsWith('/>', i) || source[i] === '>') break;
      if (i === before) fail('expected space before attribute');
      const attr = name();
      skipSpace();
      expectText('=');
      skipSpace();
      const quote = source[i];
      if (quote !== '"' && quote !== "'") fail('expected quote');
      i++;
      let value = '';
      while (source[i] !== quote) {
        const c = source[i];
        if (c === undefined || c === '<') fail('bad attribute value');
        if (c === '&') {
          value += reference();
          continue;
        }
        value += /[\t\n\r]/.test(c) ? ' ' : c; // attribute-value normalisation
        i++;
      }
      i++;
      if (attr in el.attrs) fail(`duplicate attribute ${attr}`);
      el.attrs[attr] = value;
      if (attr.startsWith('xmlns:')) scope.add(attr.slice(6));
    }
    namespaces.push(scope);
    checkPrefix(el.name);
    Object.keys(el.attrs).forEach(checkPrefix);
    if (source.startsWith('/>', i)) {
      i += 2;
    } else {
      i++;
      for (;;) {
        if (source.startsWith('</', i)) break;
        if (source[i] === '<') el.children.push(element());
        else if (source[i] === '&') el.text += reference();
        else if (i >= source.length) fail('unexpected end');
        else if (source.startsWith(']]>', i)) fail(']]> in text');
        else if (source.startsWith('\r\n', i)) (el.text += '\n'), (i += 2); // end-of-line handling
        else if (source[i] === '\r') (el.text += '\n'), i++;
        else el.text += source[i++];
      }
      i += 2;
      if (name() !== el.name) fail(`mismatched end tag for ${el.name}`);
      skipSpace();
      expectText('>');
    }
    namespaces.pop();
    return el;
  };

  expectText('<?xml version="1.0" encoding="UTF-8"?>');
  skipSpace();
  const root = element();
  skipSpace();
  if (i !== source.length) fail('content after the root element');
  return root;
}
