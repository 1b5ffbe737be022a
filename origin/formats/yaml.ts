/**
 * yaml: a sequence of mappings (`- a: 1\n  b: "x"\n`), written by hand per row
 * (much faster than building documents) and checked by parsing back with the
 * `yaml` package in the tests. Readable by YAML 1.2 and 1.1 parsers:
 * - every string (and date, time, timestamp, base64 binary) is double-quoted,
 *   so text that looks like a number, boolean or null stays a string;
 *   non-printable characters, NEL, U+2028/2029 and U+FEFF are escaped;
 * - keys are plain only when they are simple identifiers that no YAML version
 *   reads as a boolean or null (`yes`, `on`, `null`… are quoted);
 * - bigint and Decimal are exact number literals (a parser may still read them
 *   into a double; `yaml`'s `intAsBigInt` keeps integers exact); exponent forms
 *   carry a `.0` mantissa so YAML 1.1 reads them as floats too;
 * - NaN and infinities are `.nan`, `.inf`, `-.inf`; NULL is `null`;
 * - JsonValue is nested as flow-style JSON, which is YAML.
 * No rows gives `[]`.
 */
import { Decimal, JsonValue, type Value } from '../values.ts';
import type { Serializer } from './index.ts';
import { decimalLiteral, jsonNested } from './json-text.ts';
import { uniqueColumnNames } from '../drivers/column-names.ts';
import { textChunks, valueText } from './text.ts';

const YAML_UNSAFE = /[\u007F-\u009F\u2028\u2029\uFEFF\uFFFE\uFFFF]/;
const YAML_UNSAFE_ALL = /[\u007F-\u009F\u2028\u2029\uFEFF\uFFFE\uFFFF]/g;

/** JSON text (strings, flow collections) made safe as YAML: escapes what JSON leaves raw but YAML forbids. */
function yamlSafe(jsonText: string): string {
  return YAML_UNSAFE.test(jsonText)
    ? jsonText.replace(YAML_UNSAFE_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : jsonText;
}

export function yamlString(text: string): string {
  return yamlSafe(JSON.stringify(text));
}

const RESERVED_KEY = /^(y|n|yes|no|on|off|true|false|null)$/i;

export function yamlKey(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !RESERVED_KEY.test(name) ? name : yamlString(name);
}

/** `1e+21` -> `1.0e+21`: YAML 1.1 floats need a dot. */
function numberLiteral(text: string): string {
  const e = text.search(/[eE]/);
  return e > 0 && !text.slice(0, e).includes('.') ? `${text.slice(0, e)}.0${text.slice(e)}` : text;
}

function yamlValue(v: Value): string {
  switch (typeof v) {
    case 'number':
      if (Number.isFinite(v)) return numberLiteral(String(v));
      return Number.isNaN(v) ? '.nan' : v > 0 ? '.inf' : '-.inf';
    case 'bigint':
      return v.toString();
    case 'boolean':
      return v ? 'true' : 'false';
    case 'string':
      return yamlString(v);
  }
  if (v === null || v === undefined) return 'null';
  if (v instanceof Decimal) {
    const literal = decimalLiteral(v.text);
    if (literal === 'null') return /nan/i.test(v.text) ? '.nan' : v.text.startsWith('-') ? '-.inf' : '.inf';
    return literal.startsWith('"') ? yamlSafe(literal) : numberLiteral(literal);
  }
  if (v instanceof JsonValue) return yamlSafe(jsonNested(v.value));
  return yamlString(valueText(v));
}

export const yaml: Serializer = {
  contentType: 'application/yaml',
  extension: 'yaml',
  serialize(columns, rows) {
    const keys = uniqueColumnNames(columns.map((c) => c.name)).map((name, i) => `${i === 0 ? '- ' : '  '}${yamlKey(name)}: `);
    const n = keys.length;
    return textChunks('', rows, (row) => {
      if (n === 0) return '- {}\n';
      let out = '';
      for (let i = 0; i < n; i++) out += `${keys[i]}${yamlValue(row[i] ?? null)}\n`;
      return out;
    }, (count) => (count === 0 ? '[]\n' : ''));
  },
};
