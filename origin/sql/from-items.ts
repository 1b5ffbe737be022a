/** The FROM list of the table reader: its items (tables, CTEs, table functions, files, subqueries), their aliases and joins. */
import type { Dialect } from '../drivers/types.ts';
import { closingParen, isPunct } from './statements.ts';
import { AFTER_FROM, DYNAMIC, JOIN_WORDS, labelPart, NOT_ALIAS, SAMPLE_WORDS, Unreadable, unquote } from './table-words.ts';
import type { Join } from './tables.ts';
import type { Token } from './tokenizer.ts';

export interface Item {
  label: string;
}

/** FROM items visible at one query level, by alias (or bare name); inner levels see outer ones. */
export class Frame {
  readonly items = new Map<string, Item>();
  constructor(readonly parent: Frame | null) {}
  find(key: string): Item | undefined {
    return this.items.get(key) ?? this.parent?.find(key);
  }
}

/** What reading a FROM list takes from the walk it is part of (the `Reader` of `table-reader.ts`). */
export interface Walker {
  readonly sql: string;
  readonly dialect: Dialect;
  readonly tokens: Token[];
  readonly tables: Set<string>;
  readonly joins: Join[];
  dynamic: boolean;
  walk(from: number, to: number, scope: ReadonlySet<string>, outer: Frame, isQuery: boolean): void;
  group(open: number, to: number, scope: ReadonlySet<string>, frame: Frame): number;
  isQueryAt(from: number, to: number): boolean;
  identifier(token: Token): string;
  dottedName(i: number): { parts: string[]; next: number };
  near(i: number): string;
}

/**
 * FROM items joined by commas and JOINs, from `i`. With `closed`, what
 * follows must be a known clause (else the list was not understood).
 */
export function fromList(
  r: Walker,
  i: number,
  to: number,
  scope: ReadonlySet<string>,
  frame: Frame,
  closed: boolean,
): { next: number; first: Item } {
  const t = r.tokens;
  let left = fromItem(r, i, to, scope, frame);
  const first = left.item;
  let j = left.next;
  while (j < to) {
    let type: string;
    let start = j;
    if (isPunct(t[j], ',')) {
      type = 'CROSS';
      start = j + 1;
    } else {
      const kind = joinType(r, j, to);
      if (!kind) break;
      type = kind.type;
      start = kind.next;
    }
    const right = fromItem(r, start, to, scope, frame);
    j = right.next;
    let on: string | null = null;
    let onTokens: [number, number] | null = null;
    if (t[j]?.word === 'ON' && type !== 'CROSS') {
      const end = condition(r, j + 1, to, scope, frame);
      onTokens = [j + 1, end];
      on = end > j + 1 ? r.sql.slice(t[j + 1].start, t[end - 1].end) : '';
      j = end;
    } else if (t[j]?.word === 'USING' && isPunct(t[j + 1], '(')) {
      const close = closingParen(t, j + 1);
      if (close >= to) throw new Unreadable('unbalanced parentheses');
      on = r.sql.slice(t[j].start, t[close].end);
      j = close + 1;
    }
    const leftItem = (onTokens && qualifiedOther(r, onTokens, frame, right.item)) ?? left.item;
    r.joins.push({ left: leftItem.label, right: right.item.label, type, on });
    left = right;
  }
  if (closed && j < to && !isPunct(t[j], ';') && !AFTER_FROM.has(t[j].word)) {
    throw new Unreadable(`could not follow the FROM clause near "${r.near(j)}"`);
  }
  return { next: j, first };
}

/** `[NATURAL] [INNER | LEFT | RIGHT | FULL [OUTER] | CROSS | SEMI | ANTI | ASOF | POSITIONAL] JOIN` or `STRAIGHT_JOIN` at `j`. */
function joinType(r: Walker, j: number, to: number): { type: string; next: number } | null {
  const t = r.tokens;
  if (t[j].word === 'STRAIGHT_JOIN') return { type: 'STRAIGHT', next: j + 1 };
  const words: string[] = [];
  let k = j;
  while (k < to && JOIN_WORDS.has(t[k].word) && !isPunct(t[k + 1], '(')) words.push(t[k++].word);
  if (t[k]?.word !== 'JOIN') {
    if (words.length > 0) throw new Unreadable(`could not follow the join near "${r.near(j)}"`);
    return null;
  }
  const type = words.filter((w) => w !== 'OUTER').join(' ');
  return { type: type === '' ? 'INNER' : type, next: k + 1 };
}

/** An ON condition from `i`: to the next comma, join or clause at this level. Subqueries in it are walked. */
function condition(r: Walker, i: number, to: number, scope: ReadonlySet<string>, frame: Frame): number {
  const t = r.tokens;
  let j = i;
  while (j < to) {
    if (isPunct(t[j], '(')) {
      j = r.group(j, to, scope, frame) + 1;
      continue;
    }
    if (t[j].word === 'CASE') {
      j = caseEnd(r, j, to, scope, frame);
      continue;
    }
    if (isPunct(t[j], ',') || isPunct(t[j], ';')) break;
    if (!isPunct(t[j - 1], '.') && (AFTER_FROM.has(t[j].word) || t[j].word === 'JOIN' || t[j].word === 'STRAIGHT_JOIN')) break;
    if (!isPunct(t[j - 1], '.') && JOIN_WORDS.has(t[j].word) && !isPunct(t[j + 1], '(')) break;
    j++;
  }
  return j;
}

/** Past the END of the CASE at `i` (its WHEN would read as a clause); subqueries inside are walked. */
function caseEnd(r: Walker, i: number, to: number, scope: ReadonlySet<string>, frame: Frame): number {
  const t = r.tokens;
  let depth = 0;
  for (let j = i; j < to; j++) {
    if (isPunct(t[j], '(')) j = r.group(j, to, scope, frame);
    else if (t[j].word === 'CASE') depth++;
    else if (t[j].word === 'END' && --depth === 0) return j + 1;
  }
  return to;
}

/** The first item an ON condition names through a qualifier (`d.director_id`) other than `right`. */
function qualifiedOther(r: Walker, [from, to]: [number, number], frame: Frame, right: Item): Item | null {
  const t = r.tokens;
  for (let k = from + 1; k < to; k++) {
    const q = t[k - 1];
    if (!isPunct(t[k], '.') || (q.kind !== 'word' && q.kind !== 'quoted')) continue;
    const found = frame.find(r.identifier(q).toLowerCase());
    if (found && found !== right) return found;
  }
  return null;
}

/** One FROM item at `i`: table, CTE, table function, file, subquery or parenthesised join, with its alias. */
export function fromItem(r: Walker, i: number, to: number, scope: ReadonlySet<string>, frame: Frame): { next: number; item: Item } {
  const t = r.tokens;
  let j = i;
  while (t[j]?.word === 'LATERAL' || t[j]?.word === 'ONLY') j++;
  const token = t[j];
  if (j >= to || !token) throw new Unreadable(`a FROM, JOIN or INTO names no table near "${r.near(i - 1)}"`);
  let item: Item;
  let key: string | null = null;
  if (isPunct(token, '(')) {
    const close = closingParen(t, j);
    if (close >= to) throw new Unreadable('unbalanced parentheses');
    if (r.isQueryAt(j + 1, close)) {
      r.walk(j + 1, close, scope, frame, true);
      item = { label: 'subquery' };
    } else {
      // A parenthesised join: its items belong to this level.
      const inner = fromList(r, j + 1, close, scope, frame, false);
      if (inner.next !== close) throw new Unreadable(`could not follow the FROM clause near "${r.near(inner.next)}"`);
      item = inner.first;
    }
    j = close + 1;
  } else if (token.kind === 'word' || token.kind === 'quoted' || (token.kind === 'string' && r.dialect === 'sqlite')) {
    const dotted = r.dottedName(j);
    const parts = dotted.parts;
    j = dotted.next;
    const name = parts.map(labelPart).join('.');
    key = parts[parts.length - 1].toLowerCase();
    if (isPunct(t[j], '(')) {
      if (DYNAMIC.has(parts[parts.length - 1].toLowerCase())) r.dynamic = true;
      item = { label: `function:${name}` };
      r.tables.add(item.label);
      j = r.group(j, to, scope, frame) + 1;
      if (t[j]?.word === 'WITH' && t[j + 1]?.word === 'ORDINALITY') j += 2;
    } else if (parts.length === 1 && scope.has(parts[0])) {
      item = { label: `cte:${name}` };
    } else {
      item = { label: name };
      if (!(r.dialect === 'mysql' && token.word === 'DUAL' && parts.length === 1)) r.tables.add(name);
      if (t[j]?.text === '*' && t[j].kind === 'operator') j++; // postgres: `films *`, the table and its children
    }
  } else if (token.kind === 'string' && r.dialect === 'duckdb') {
    item = { label: `file:${unquote(token.text)}` };
    r.tables.add(item.label);
    j++;
  } else if (token.kind === 'marker') {
    throw new Unreadable(`the table is a parameter (${token.text}): parameters bind values, not table names`);
  } else if (isPunct(token, '{')) {
    throw new Unreadable(`the table is a legacy {placeholder}, decided at run time`);
  } else {
    throw new Unreadable(`could not read the table name near "${r.near(j)}"`);
  }
  j = skipModifiers(r, j, to);
  if (t[j]?.word === 'AS') j++;
  const alias = t[j];
  if (j < to && (alias.kind === 'quoted' || (alias.kind === 'word' && !NOT_ALIAS.has(alias.word)))) {
    key = r.identifier(alias).toLowerCase();
    j++;
    if (isPunct(t[j], '(')) j = r.group(j, to, scope, frame) + 1; // column aliases
  }
  j = skipModifiers(r, j, to);
  if (key !== null) frame.items.set(key, item);
  return { next: j, item };
}

/** TABLESAMPLE, MySQL PARTITION and index hints, SQLite INDEXED BY / NOT INDEXED: nothing to report. */
function skipModifiers(r: Walker, j: number, to: number): number {
  const t = r.tokens;
  const pastParen = (k: number) => (isPunct(t[k], '(') ? closingParen(t, k) + 1 : k);
  for (;;) {
    const word = t[j]?.word;
    if (j >= to) return j;
    if (word === 'TABLESAMPLE') {
      // postgres `BERNOULLI (10) REPEATABLE (1)`; duckdb `10%`, `10 PERCENT (bernoulli)`, `reservoir(50 ROWS)`.
      j++;
      while (j < to && (SAMPLE_WORDS.has(t[j].word) || t[j].kind === 'number' || t[j].text === '%' || isPunct(t[j], '('))) {
        j = isPunct(t[j], '(') ? closingParen(t, j) + 1 : j + 1;
      }
    } else if (word === 'PARTITION' && isPunct(t[j + 1], '(')) {
      j = pastParen(j + 1);
    } else if (['USE', 'FORCE', 'IGNORE'].includes(word) && ['INDEX', 'KEY'].includes(t[j + 1]?.word)) {
      j += 2;
      if (t[j]?.word === 'FOR') j += t[j + 1]?.word === 'JOIN' ? 2 : 3;
      j = pastParen(j);
    } else if (word === 'INDEXED' && t[j + 1]?.word === 'BY') {
      j += 3;
    } else if (word === 'NOT' && t[j + 1]?.word === 'INDEXED') {
      j += 2;
    } else if (word === 'FOR' && t[j + 1]?.word === 'SYSTEM_TIME') {
      // MariaDB's period clause has no clear end before a following `, table`.
      throw new Unreadable('FOR SYSTEM_TIME (system-versioned tables) is not analysed');
    } else {
      return j;
    }
    if (j > to) throw new Unreadable('unbalanced parentheses');
  }
}
