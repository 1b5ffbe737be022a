import { lexDialect, type Engine } from './engine.ts';
import type { Token } from './tokenizer.ts';

/**
 * Names as the engine reads them. Every identifier form is decoded to the
 * name the engine resolves before any check compares it: doubled quotes,
 * backticks and brackets, ClickHouse's backslash escapes, `U&"..."` with
 * `\XXXX`, `\+XXXXXX` and `UESCAPE` (PostgreSQL, H2), PostgreSQL's folding
 * of unquoted names and its 63-byte limit. A form the guard cannot decode,
 * or one the engine would reject or read another way, is `unreadable`: the
 * statement is then refused, never passed (ADR 0022).
 */
export type ReadName = { name: string } | { unreadable: string };

/** PostgreSQL's NAMEDATALEN - 1: longer names are cut to this many bytes. */
const PG_NAME_BYTES = 63;

/** The name a word or quoted token stands for; null for any other token. */
export function readName(token: Token, engine: Engine): ReadName | null {
  if (token.kind === 'word') return { name: fold(token.text, engine) };
  if (token.kind !== 'quoted') return null;
  const text = token.text;
  if (text[0] === 'U' || text[0] === 'u') return unicodeName(text, engine);
  const open = text[0];
  const close = open === '[' ? ']' : open;
  if (text.length < 2 || !text.endsWith(close)) return { unreadable: `${clip(text)} is not closed` };
  const inner = text.slice(1, -1);
  if (lexDialect(engine) === 'clickhouse') return clickhouseName(inner);
  return { name: limit(open === '[' ? inner : inner.replaceAll(close + close, close), engine) };
}

/** A name for comparing without case: lower then upper, so a letter whose upper case differs is seen either way. */
export const caseless = (name: string): string => name.toLowerCase().toUpperCase();

/** The text of a string or name token that is a `U&'...'` string: never a name. */
export const isUnicodeString = (token: Token | undefined): boolean =>
  token?.kind === 'string' && (token.text.startsWith('U&') || token.text.startsWith('u&'));

/** PostgreSQL folds unquoted names to lower case (ASCII only); H2 to upper case by default; the others keep them. */
function fold(word: string, engine: Engine): string {
  if (engine === 'postgres') return limit(word.replace(/[A-Z]+/g, (s) => s.toLowerCase()), engine);
  if (engine === 'h2') return word.replace(/[a-z]+/g, (s) => s.toUpperCase());
  return word;
}

function limit(name: string, engine: Engine): string {
  if (engine !== 'postgres' || Buffer.byteLength(name) <= PG_NAME_BYTES) return name;
  let cut = '';
  for (const char of name) {
    if (Buffer.byteLength(cut + char) > PG_NAME_BYTES) break;
    cut += char;
  }
  return cut;
}

const clip = (text: string) => (text.length > 40 ? `${text.slice(0, 40)}...` : text);
const HEX = /^[0-9A-Fa-f]+$/;

/**
 * `U&"..."` [UESCAPE '<c>'], as PostgreSQL's str_udeescape and H2 read it:
 * `<c>XXXX` and `<c>+XXXXXX` are code points (a surrogate pair as two
 * escapes), `<c><c>` is `<c>`; anything else after `<c>` is an error there
 * and unreadable here. DuckDB's parser rejects every U& name.
 */
function unicodeName(text: string, engine: Engine): ReadName {
  const why = (reason: string): ReadName => ({ unreadable: `${clip(text)} ${reason}` });
  if (engine === 'duckdb') return why('is a U& name, which DuckDB does not decode');
  let close = 3;
  for (; close < text.length; close++) {
    if (text[close] === '"') {
      if (text[close + 1] !== '"') break;
      close++;
    }
  }
  if (close >= text.length) return why('is not closed');
  const body = text.slice(3, close).replaceAll('""', '"');
  const clause = stripComments(text.slice(close + 1)).trim();
  let escape = '\\';
  if (clause !== '') {
    const found = /^UESCAPE\s*'(.*)'$/is.exec(clause);
    if (!found) return why('has a UESCAPE clause that cannot be read');
    const c = found[1].replaceAll("''", "'");
    if ([...c].length !== 1 || /[0-9A-Fa-f+'"\s]/.test(c)) return why(`has an invalid UESCAPE character ${JSON.stringify(found[1])}`);
    escape = c;
  }
  let name = '';
  let high: number | null = null;
  for (let i = 0; i < body.length; ) {
    const c = body[i];
    if (c !== escape) {
      if (high !== null) return why('has a lone surrogate escape');
      name += c;
      i += c.length;
      continue;
    }
    if (body[i + 1] === escape) {
      if (high !== null) return why('has a lone surrogate escape');
      name += escape;
      i += 2;
      continue;
    }
    const plus = body[i + 1] === '+';
    const digits = plus ? body.slice(i + 2, i + 8) : body.slice(i + 1, i + 5);
    if (digits.length !== (plus ? 6 : 4) || !HEX.test(digits)) return why('has an invalid Unicode escape');
    const code = parseInt(digits, 16);
    i += plus ? 8 : 5;
    if (code >= 0xdc00 && code <= 0xdfff) {
      if (high === null) return why('has a lone surrogate escape');
      name += String.fromCodePoint(0x10000 + ((high - 0xd800) << 10) + (code - 0xdc00));
      high = null;
    } else if (high !== null || code === 0 || code > 0x10ffff) {
      return why('has an invalid Unicode escape');
    } else if (code >= 0xd800 && code <= 0xdbff) {
      high = code;
    } else {
      name += String.fromCodePoint(code);
    }
  }
  if (high !== null) return why('has a lone surrogate escape');
  return { name: limit(name, engine) };
}

/** Comments between a U& name and its UESCAPE (the tokenizer took them in); block comments nest as in PostgreSQL. */
function stripComments(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    if (text.startsWith('--', i)) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end;
    } else if (text.startsWith('/*', i)) {
      let depth = 0;
      do {
        if (text.startsWith('/*', i)) (depth++, (i += 2));
        else if (text.startsWith('*/', i)) (depth--, (i += 2));
        else i++;
      } while (depth > 0 && i < text.length);
      out += ' ';
    } else if (text[i] === "'") {
      const end = closingQuote(text, i);
      out += text.slice(i, end);
      i = end;
    } else {
      out += text[i++];
    }
  }
  return out;
}

function closingQuote(text: string, open: number): number {
  let j = open + 1;
  while (j < text.length) {
    if (text[j] === "'" && text[j + 1] === "'") j += 2;
    else if (text[j] === "'") return j + 1;
    else j++;
  }
  return text.length;
}

const CLICKHOUSE_ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', 0: '\0', a: '\x07', v: '\v', e: '\x1b' };

/** ClickHouse reads backslash escapes in quoted names: `\xHH`, `\n`..., and `\c` as `c`; the doubled quote is the quote. */
function clickhouseName(inner: string): ReadName {
  let name = '';
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c !== '\\') {
      // The doubled closing quote: the tokenizer kept both, the name holds one.
      if ((c === '`' || c === '"') && inner[i + 1] === c) i++;
      name += c;
      continue;
    }
    const next = inner[i + 1];
    if (next === undefined) return { unreadable: `a quoted name ends in a backslash` };
    if (next === 'x' || next === 'X') {
      const hex = inner.slice(i + 2, i + 4);
      if (hex.length !== 2 || !HEX.test(hex)) return { unreadable: `a quoted name has an invalid \\x escape` };
      name += String.fromCharCode(parseInt(hex, 16));
      i += 3;
    } else {
      name += CLICKHOUSE_ESCAPES[next] ?? next;
      i++;
    }
  }
  return { name };
}
