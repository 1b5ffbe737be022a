/**
 * A best-effort text that matches a `pattern` rule, for generated docs. It
 * walks a subset of RE2's syntax (characters, escapes, classes, groups,
 * alternation, quantifiers; anchors and flag groups are skipped) and picks
 * each character by testing a few candidates against that piece alone, on
 * RE2 like the check itself. The result is always checked against the whole
 * pattern; when nothing fits (odd classes, \Q…\E) there is no example.
 */
import { codePointLength } from './check.ts';
import { PatternRefused, compilePattern, matchesWhole } from './pattern.ts';

type Node =
  | { kind: 'char'; token: string }
  | { kind: 'empty' }
  | { kind: 'group'; alternatives: Node[][] }
  | { kind: 'repeat'; node: Node; min: number; max: number };

/** Thrown where the pattern uses something this walker cannot produce. */
class Unsupported extends Error {}

const CANDIDATES = ['a', 'x', 'A', '0', '1', '_', '-', '.', ' ', '@', '!', '#', '+', '/', ':', ',', 'é'];
const SIMPLE_ESCAPES: Record<string, string> = { t: '\t', n: '\n', r: '\r', v: '\v', f: '\f', a: '\x07', '0': '\0' };
const LONGEST_EXAMPLE = 10_000;
const MAX_ATTEMPTS = 32;

class Parser {
  pos = 0;
  constructor(readonly source: string) {}

  /** Alternatives up to the end or the closing parenthesis of the current group. */
  alternatives(): Node[][] {
    const alternatives: Node[][] = [[]];
    while (this.pos < this.source.length) {
      const ch = this.source[this.pos];
      if (ch === ')') break;
      if (ch === '|') {
        this.pos++;
        alternatives.push([]);
        continue;
      }
      alternatives[alternatives.length - 1].push(this.quantified(this.atom()));
    }
    return alternatives;
  }

  private atom(): Node {
    const { source } = this;
    const ch = source[this.pos];
    if (ch === '^' || ch === '$') {
      this.pos++;
      return { kind: 'empty' };
    }
    if (ch === '(') return this.group();
    if (ch === '[') return { kind: 'char', token: this.charClass() };
    if (ch === '\\') return this.escape();
    const codePoint = String.fromCodePoint(source.codePointAt(this.pos)!);
    this.pos += codePoint.length;
    return { kind: 'char', token: codePoint };
  }

  /**
   * A bracketed class through its closing `]`: a `]` right after the opening
   * (and `^`) is a member, as are escaped characters and `[:name:]` classes.
   */
  private charClass(): string {
    const { source } = this;
    let i = this.pos + 1;
    if (source[i] === '^') i++;
    if (source[i] === ']') i++;
    while (i < source.length && source[i] !== ']') {
      if (source[i] === '\\') i += 2;
      else if (source.startsWith('[:', i) && source.indexOf(':]', i + 2) >= 0) i = source.indexOf(':]', i + 2) + 2;
      else i++;
    }
    const token = source.slice(this.pos, i + 1);
    this.pos = i + 1;
    return token;
  }

  private group(): Node {
    const rest = this.source.slice(this.pos);
    const flags = /^\(\?[imsU-]*\)/.exec(rest);
    if (flags) {
      this.pos += flags[0].length;
      return { kind: 'empty' };
    }
    this.pos += (/^\(\?(?:P?<[^>]+>|[imsU-]*:)/.exec(rest) ?? ['('])[0].length;
    const alternatives = this.alternatives();
    this.pos++; // the closing parenthesis
    return { kind: 'group', alternatives };
  }

  private escape(): Node {
    const rest = this.source.slice(this.pos);
    if (/^\\[bBAz]/.test(rest)) {
      this.pos += 2;
      return { kind: 'empty' };
    }
    const token = /^\\(?:x\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|[pP]\{[^}]*\}|[pP][A-Za-z])/.exec(rest)?.[0];
    const text = token ?? String.fromCodePoint(rest.codePointAt(0)!) + String.fromCodePoint(rest.codePointAt(1)!);
    this.pos += text.length;
    return { kind: 'char', token: text };
  }

  private quantified(node: Node): Node {
    const match = /^(?:([*+?])|\{(\d+)(?:(,)(\d*))?\})\??/.exec(this.source.slice(this.pos));
    if (!match) return node;
    this.pos += match[0].length;
    const [, symbol, low, comma, high] = match;
    if (symbol) return { kind: 'repeat', node, min: symbol === '+' ? 1 : 0, max: symbol === '?' ? 1 : Infinity };
    const min = Number(low);
    return { kind: 'repeat', node, min, max: comma === undefined ? min : high === '' ? Infinity : Number(high) };
  }
}

/** The character an escape stands for literally, when it stands for one. */
function literalOf(token: string): string | undefined {
  if (!token.startsWith('\\')) return token.length > 1 && token.startsWith('[') ? undefined : token;
  const body = token.slice(1);
  if (SIMPLE_ESCAPES[body] !== undefined) return SIMPLE_ESCAPES[body];
  const hex = /^x(?:\{([0-9a-fA-F]{1,6})\}|([0-9a-fA-F]{2}))$/.exec(body);
  if (hex) return String.fromCodePoint(parseInt(hex[1] ?? hex[2], 16));
  return /^[^A-Za-z0-9]$/u.test(body) ? body : undefined;
}

function pickChar(token: string, cache: Map<string, string>): string {
  const cached = cache.get(token);
  if (cached !== undefined) return cached;
  const literal = literalOf(token);
  // The token's own characters come last: they cover classes like [\]\\] that no usual candidate matches.
  const candidates = [...(literal === undefined ? [] : [literal]), ...CANDIDATES, ...token];
  const found = candidates.find((c) => matchesWhole(token, c));
  if (found === undefined) throw new Unsupported(`no candidate for ${token}`);
  cache.set(token, found);
  return found;
}

function generate(nodes: Node[], extra: number, cache: Map<string, string>): string {
  let text = '';
  for (const node of nodes) {
    text += generateNode(node, extra, cache);
    if (text.length > LONGEST_EXAMPLE) throw new Unsupported('too long');
  }
  return text;
}

function generateNode(node: Node, extra: number, cache: Map<string, string>): string {
  switch (node.kind) {
    case 'empty':
      return '';
    case 'char':
      return pickChar(node.token, cache);
    case 'group':
      for (const alternative of node.alternatives) {
        try {
          return generate(alternative, extra, cache);
        } catch (error) {
          if (!(error instanceof Unsupported)) throw error;
        }
      }
      throw new Unsupported('no alternative');
    case 'repeat': {
      const count = Math.min(node.max, node.min + extra);
      if (count > LONGEST_EXAMPLE) throw new Unsupported('too long');
      let text = '';
      for (let i = 0; i < count; i++) text += generateNode(node.node, extra, cache);
      return text;
    }
  }
}

/** A value the whole pattern matches within the length bounds, or null when none was found. */
export function patternExample(pattern: string, minLength?: number, maxLength?: number): string | null {
  try {
    return search(pattern, minLength, maxLength);
  } catch (error) {
    // PatternRefused: a piece the walker cut that RE2 does not read alone, or a stored pattern RE2 refuses.
    if (error instanceof Unsupported || error instanceof PatternRefused) return null;
    throw error;
  }
}

/**
 * Longer and longer texts (every quantifier repeats `extra` more times) until
 * one matches within the bounds. Short of min_length, `extra` leaps by the
 * growth seen so far; past max_length it backs off halfway.
 */
function search(pattern: string, minLength = 0, maxLength = Infinity): string | null {
  compilePattern(pattern);
  const root: Node = { kind: 'group', alternatives: new Parser(pattern).alternatives() };
  const cache = new Map<string, string>();
  let extra = 0;
  let short: { extra: number; length: number } | undefined; // the last try below min_length
  let tooLong = Infinity; // the smallest extra found past max_length
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const text = generateNode(root, extra, cache);
    const length = codePointLength(text);
    if (length > maxLength) tooLong = extra;
    else if (length >= minLength && matchesWhole(pattern, text)) return text;
    let next = extra + 1;
    if (length < minLength) {
      const growth = short ? (length - short.length) / (extra - short.extra) : 0;
      if (growth > 0) next = extra + Math.max(1, Math.floor((minLength - length) / growth));
      short = { extra, length };
    }
    if (next >= tooLong) next = Math.floor(((short?.extra ?? -1) + tooLong) / 2);
    if (next <= (short?.extra ?? -1) || next === extra) return null;
    extra = next;
  }
  return null;
}
