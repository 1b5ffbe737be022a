import type { Dialect } from '../drivers/types.ts';
import { parseWith } from './cte.ts';
import { closingParen, depths, isPunct, leadingIndex } from './statements.ts';
import type { Join } from './tables.ts';
import type { Token } from './tokenizer.ts';

/** Thrown when the text cannot be followed; `analyzeTables` returns it as `error`. */
export class Unreadable extends Error {}

const MAX_DEPTH = 256;
/** Statements whose FROM, JOIN, INTO... name tables (`SHOW ... FROM db`, `COPY t FROM 'f'`, `REVOKE ... FROM role` do not). */
const QUERY_LEADS = new Set([
  ...['SELECT', 'WITH', 'VALUES', 'TABLE', 'INSERT', 'UPDATE', 'DELETE', 'MERGE', 'REPLACE', 'UPSERT'],
  ...['EXPLAIN', 'DESCRIBE', 'DESC', 'SUMMARIZE', 'CREATE'],
]);
/** Leads of a parenthesised query (subquery, CTE body, data-modifying CTE). */
const NESTED_LEADS = new Set(['SELECT', 'WITH', 'VALUES', 'TABLE', 'INSERT', 'UPDATE', 'DELETE', 'MERGE']);
const JOIN_WORDS = new Set(['NATURAL', 'INNER', 'LEFT', 'RIGHT', 'FULL', 'OUTER', 'CROSS', 'SEMI', 'ANTI', 'ASOF', 'POSITIONAL']);
/** What may follow a FROM list (or end an ON condition); anything else means the clause was not understood. */
const AFTER_FROM = new Set([
  ...['WHERE', 'GROUP', 'HAVING', 'ORDER', 'LIMIT', 'OFFSET', 'FETCH', 'WINDOW', 'QUALIFY', 'UNION', 'INTERSECT'],
  ...['EXCEPT', 'SET', 'RETURNING', 'FOR', 'LOCK', 'INTO', 'ON', 'USING', 'SELECT'],
]);
/** Words that end a FROM item instead of naming its alias. */
const NOT_ALIAS = new Set([
  ...AFTER_FROM, ...JOIN_WORDS, 'JOIN', 'STRAIGHT_JOIN', 'LATERAL', 'TABLESAMPLE', 'USE', 'FORCE', 'IGNORE',
  'INDEXED', 'NOT', 'PARTITION', 'WITH', 'FROM', 'VALUES', 'AS', 'PIVOT', 'UNPIVOT',
]);
/**
 * Functions that run SQL text or read a table named by a value: what they
 * touch is decided at run time. Any call by these names makes `tablesOrNull`
 * answer null.
 */
const DYNAMIC = new Set([
  ...['query', 'query_table', 'sql', 'eval', 'dblink', 'dblink_exec', 'dblink_open', 'dblink_send_query'],
  ...['query_to_xml', 'query_to_xmlschema', 'query_to_xml_and_xmlschema', 'cursor_to_xml', 'table_to_xml'],
  ...['table_to_xmlschema', 'table_to_xml_and_xmlschema', 'schema_to_xml', 'database_to_xml', 'ts_stat', 'ts_rewrite'],
]);
const SAMPLE_WORDS = new Set(['BERNOULLI', 'SYSTEM', 'RESERVOIR', 'PERCENT', 'ROWS', 'REPEATABLE']);

interface Item {
  label: string;
}

/** FROM items visible at one query level, by alias (or bare name); inner levels see outer ones. */
class Frame {
  readonly items = new Map<string, Item>();
  constructor(readonly parent: Frame | null) {}
  find(key: string): Item | undefined {
    return this.items.get(key) ?? this.parent?.find(key);
  }
}

/**
 * The walk behind `analyzeTables` (see `tables.ts` for what it reports):
 * each parenthesis level is a query (its FROM, JOIN, INTO, UPDATE, USING and
 * TABLE clauses name tables) or an expression (only nested levels can), and
 * CTE names are scoped as the databases scope them.
 */
export class Reader {
  readonly tables = new Set<string>();
  readonly joins: Join[] = [];
  dynamic = false;
  private tokens: Token[] = [];

  constructor(
    private readonly sql: string,
    private readonly dialect: Dialect,
  ) {}

  statement(tokens: Token[]): void {
    this.tokens = tokens;
    if (depths(tokens).some((depth) => depth > MAX_DEPTH)) throw new Unreadable(`parentheses nest more than ${MAX_DEPTH} deep`);
    const lead = tokens[leadingIndex(tokens)]?.word ?? '';
    this.walk(0, tokens.length, new Set(), new Frame(null), QUERY_LEADS.has(lead) || this.isQueryAt(0, tokens.length));
  }

  /** One parenthesis level `[from, to)`: a query (clauses name tables) or an expression (only nested levels can). */
  private walk(from: number, to: number, scope: ReadonlySet<string>, outer: Frame, isQuery: boolean): void {
    const t = this.tokens;
    let frame = new Frame(outer);
    let lead = leadingIndex(t, from);
    for (let i = from; i < to; ) {
      const token = t[i];
      if (isPunct(token, '(')) {
        i = this.group(i, to, scope, frame) + 1;
        continue;
      }
      if (isPunct(token, ')')) throw new Unreadable('unbalanced parentheses');
      if (token.kind === 'word' && isPunct(t[i + 1], '(') && DYNAMIC.has(token.word.toLowerCase())) this.dynamic = true;
      if (!isQuery) {
        // Only the top level (from 0) may be a statement that is no query, like `PREPARE p AS SELECT ...`.
        if (token.word === 'SELECT' && from > 0) throw new Unreadable(`SELECT in an unexpected place near "${this.near(i)}"`);
        i++;
        continue;
      }
      const word = token.word;
      if (word === 'WITH' && this.isCte(i)) {
        const main = this.with(i, to, scope, frame, i === lead);
        if (main !== null) {
          scope = main.scope;
          i = lead = leadingIndex(t, main.start);
          continue;
        }
      } else if (word === 'SELECT') {
        frame = new Frame(outer);
      } else if (word === 'FROM' && !this.isDistinctFrom(i)) {
        i = this.fromList(i + 1, to, scope, frame, true).next;
        continue;
      } else if (word === 'UPDATE' && i === lead) {
        while (['LOW_PRIORITY', 'IGNORE', 'OR'].includes(t[i + 1]?.word)) i += t[i + 1].word === 'OR' ? 2 : 1;
        i = this.fromList(i + 1, to, scope, frame, true).next;
        continue;
      } else if (word === 'USING' && ['DELETE', 'MERGE'].includes(t[lead].word) && !isPunct(t[i + 1], '(')) {
        i = this.fromList(i + 1, to, scope, frame, true).next;
        continue;
      } else if (word === 'INTO') {
        i = this.into(i + 1, to, frame);
        continue;
      } else if (word === 'TABLE' && (i === lead || ['UNION', 'INTERSECT', 'EXCEPT', 'ALL', 'DISTINCT'].includes(t[i - 1]?.word))) {
        i = this.item(i + 1, to, scope, frame).next;
        continue;
      } else if (word === 'JOIN' || word === 'STRAIGHT_JOIN') {
        throw new Unreadable(`a JOIN outside any FROM clause near "${this.near(i)}"`);
      }
      i++;
    }
  }

  /** A parenthesised level starting at `open`; returns its `)`. */
  private group(open: number, to: number, scope: ReadonlySet<string>, frame: Frame): number {
    const close = closingParen(this.tokens, open);
    if (close >= to) throw new Unreadable('unbalanced parentheses');
    this.walk(open + 1, close, scope, frame, this.isQueryAt(open + 1, close));
    return close;
  }

  private isQueryAt(from: number, to: number): boolean {
    const lead = leadingIndex(this.tokens, from);
    const word = lead < to ? this.tokens[lead].word : '';
    return NESTED_LEADS.has(word) || (word === 'FROM' && this.dialect === 'duckdb');
  }

  /** `WITH [RECURSIVE] name AS` or `name (`: not `WITH ORDINALITY`, `WITH TIME ZONE`, `WITH ROLLUP`, `WITH TIES`... */
  private isCte(i: number): boolean {
    const t = this.tokens;
    const at = t[i + 1]?.word === 'RECURSIVE' ? i + 2 : i + 1;
    const name = t[at];
    return (name?.kind === 'word' || name?.kind === 'quoted') && (t[at + 1]?.word === 'AS' || isPunct(t[at + 1], '('));
  }

  /**
   * Walks each CTE body with the names it can see and returns the scope and
   * start of the main statement. A non-recursive CTE sees the ones before it
   * (sqlite: and itself), so `WITH films AS (SELECT * FROM films)` reads the
   * table; WITH RECURSIVE makes every name visible in every body.
   */
  private with(i: number, to: number, scope: ReadonlySet<string>, frame: Frame, atLead: boolean) {
    const clause = parseWith(this.tokens, i, to);
    if (!clause) {
      if (atLead) throw new Unreadable('the WITH clause could not be understood');
      return null;
    }
    const recursive = this.tokens[i + 1].word === 'RECURSIVE';
    const names = clause.bodies.map(([start]) => this.cteName(start - 1));
    clause.bodies.forEach(([start, stop], k) => {
      const visible = recursive ? names : names.slice(0, this.dialect === 'sqlite' ? k + 1 : k);
      this.walk(start, stop, new Set([...scope, ...visible]), frame, this.isQueryAt(start, stop));
    });
    return { scope: new Set([...scope, ...names]), start: clause.mainStart };
  }

  /** The name of the CTE whose body opens at `open`: back over `[NOT] MATERIALIZED`, `AS`, column lists and `USING KEY (...)`. */
  private cteName(open: number): string {
    const t = this.tokens;
    let j = open - 1;
    if (t[j]?.word === 'MATERIALIZED') j--;
    if (t[j]?.word === 'NOT') j--;
    j--; // AS
    while (isPunct(t[j], ')')) {
      j = openingParen(t, j) - 1;
      if (t[j]?.word === 'KEY' && t[j - 1]?.word === 'USING') j -= 2;
    }
    if (!t[j] || (t[j].kind !== 'word' && t[j].kind !== 'quoted')) throw new Unreadable('the WITH clause could not be understood');
    return this.identifier(t[j]);
  }

  /** `IS [NOT] DISTINCT FROM` compares; it names no table. */
  private isDistinctFrom(i: number): boolean {
    const t = this.tokens;
    return t[i - 1]?.word === 'DISTINCT' && (t[i - 2]?.word === 'IS' || t[i - 2]?.word === 'NOT');
  }

  /**
   * FROM items joined by commas and JOINs, from `i`. With `closed`, what
   * follows must be a known clause (else the list was not understood).
   */
  private fromList(i: number, to: number, scope: ReadonlySet<string>, frame: Frame, closed: boolean): { next: number; first: Item } {
    const t = this.tokens;
    let left = this.item(i, to, scope, frame);
    const first = left.item;
    let j = left.next;
    while (j < to) {
      let type: string;
      let start = j;
      if (isPunct(t[j], ',')) {
        type = 'CROSS';
        start = j + 1;
      } else {
        const kind = this.joinType(j, to);
        if (!kind) break;
        type = kind.type;
        start = kind.next;
      }
      const right = this.item(start, to, scope, frame);
      j = right.next;
      let on: string | null = null;
      let onTokens: [number, number] | null = null;
      if (t[j]?.word === 'ON' && type !== 'CROSS') {
        const end = this.condition(j + 1, to, scope, frame);
        onTokens = [j + 1, end];
        on = end > j + 1 ? this.sql.slice(t[j + 1].start, t[end - 1].end) : '';
        j = end;
      } else if (t[j]?.word === 'USING' && isPunct(t[j + 1], '(')) {
        const close = closingParen(t, j + 1);
        if (close >= to) throw new Unreadable('unbalanced parentheses');
        on = this.sql.slice(t[j].start, t[close].end);
        j = close + 1;
      }
      const leftItem = (onTokens && this.qualifiedOther(onTokens, frame, right.item)) ?? left.item;
      this.joins.push({ left: leftItem.label, right: right.item.label, type, on });
      left = right;
    }
    if (closed && j < to && !isPunct(t[j], ';') && !AFTER_FROM.has(t[j].word)) {
      throw new Unreadable(`could not follow the FROM clause near "${this.near(j)}"`);
    }
    return { next: j, first };
  }

  /** `[NATURAL] [INNER | LEFT | RIGHT | FULL [OUTER] | CROSS | SEMI | ANTI | ASOF | POSITIONAL] JOIN` or `STRAIGHT_JOIN` at `j`. */
  private joinType(j: number, to: number): { type: string; next: number } | null {
    const t = this.tokens;
    if (t[j].word === 'STRAIGHT_JOIN') return { type: 'STRAIGHT', next: j + 1 };
    const words: string[] = [];
    let k = j;
    while (k < to && JOIN_WORDS.has(t[k].word) && !isPunct(t[k + 1], '(')) words.push(t[k++].word);
    if (t[k]?.word !== 'JOIN') {
      if (words.length > 0) throw new Unreadable(`could not follow the join near "${this.near(j)}"`);
      return null;
    }
    const type = words.filter((w) => w !== 'OUTER').join(' ');
    return { type: type === '' ? 'INNER' : type, next: k + 1 };
  }

  /** An ON condition from `i`: to the next comma, join or clause at this level. Subqueries in it are walked. */
  private condition(i: number, to: number, scope: ReadonlySet<string>, frame: Frame): number {
    const t = this.tokens;
    let j = i;
    while (j < to) {
      if (isPunct(t[j], '(')) {
        j = this.group(j, to, scope, frame) + 1;
        continue;
      }
      if (t[j].word === 'CASE') {
        j = this.caseEnd(j, to, scope, frame);
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
  private caseEnd(i: number, to: number, scope: ReadonlySet<string>, frame: Frame): number {
    const t = this.tokens;
    let depth = 0;
    for (let j = i; j < to; j++) {
      if (isPunct(t[j], '(')) j = this.group(j, to, scope, frame);
      else if (t[j].word === 'CASE') depth++;
      else if (t[j].word === 'END' && --depth === 0) return j + 1;
    }
    return to;
  }

  /** The first item an ON condition names through a qualifier (`d.director_id`) other than `right`. */
  private qualifiedOther([from, to]: [number, number], frame: Frame, right: Item): Item | null {
    const t = this.tokens;
    for (let k = from + 1; k < to; k++) {
      const q = t[k - 1];
      if (!isPunct(t[k], '.') || (q.kind !== 'word' && q.kind !== 'quoted')) continue;
      const found = frame.find(this.identifier(q).toLowerCase());
      if (found && found !== right) return found;
    }
    return null;
  }

  /** One FROM item at `i`: table, CTE, table function, file, subquery or parenthesised join, with its alias. */
  private item(i: number, to: number, scope: ReadonlySet<string>, frame: Frame): { next: number; item: Item } {
    const t = this.tokens;
    let j = i;
    while (t[j]?.word === 'LATERAL' || t[j]?.word === 'ONLY') j++;
    const token = t[j];
    if (j >= to || !token) throw new Unreadable(`a FROM, JOIN or INTO names no table near "${this.near(i - 1)}"`);
    let item: Item;
    let key: string | null = null;
    if (isPunct(token, '(')) {
      const close = closingParen(t, j);
      if (close >= to) throw new Unreadable('unbalanced parentheses');
      if (this.isQueryAt(j + 1, close)) {
        this.walk(j + 1, close, scope, frame, true);
        item = { label: 'subquery' };
      } else {
        // A parenthesised join: its items belong to this level.
        const inner = this.fromList(j + 1, close, scope, frame, false);
        if (inner.next !== close) throw new Unreadable(`could not follow the FROM clause near "${this.near(inner.next)}"`);
        item = inner.first;
      }
      j = close + 1;
    } else if (token.kind === 'word' || token.kind === 'quoted' || (token.kind === 'string' && this.dialect === 'sqlite')) {
      const parts = [this.identifier(token)];
      j++;
      while (isPunct(t[j], '.') && (t[j + 1]?.kind === 'word' || t[j + 1]?.kind === 'quoted')) {
        parts.push(this.identifier(t[j + 1]));
        j += 2;
      }
      const name = parts.map(labelPart).join('.');
      key = parts[parts.length - 1].toLowerCase();
      if (isPunct(t[j], '(')) {
        if (DYNAMIC.has(parts[parts.length - 1].toLowerCase())) this.dynamic = true;
        item = { label: `function:${name}` };
        this.tables.add(item.label);
        j = this.group(j, to, scope, frame) + 1;
        if (t[j]?.word === 'WITH' && t[j + 1]?.word === 'ORDINALITY') j += 2;
      } else if (parts.length === 1 && scope.has(parts[0])) {
        item = { label: `cte:${name}` };
      } else {
        item = { label: name };
        if (!(this.dialect === 'mysql' && token.word === 'DUAL' && parts.length === 1)) this.tables.add(name);
        if (t[j]?.text === '*' && t[j].kind === 'operator') j++; // postgres: `films *`, the table and its children
      }
    } else if (token.kind === 'string' && this.dialect === 'duckdb') {
      item = { label: `file:${unquote(token.text)}` };
      this.tables.add(item.label);
      j++;
    } else if (token.kind === 'marker') {
      throw new Unreadable(`the table is a parameter (${token.text}): parameters bind values, not table names`);
    } else if (isPunct(token, '{')) {
      throw new Unreadable(`the table is a legacy {placeholder}, decided at run time`);
    } else {
      throw new Unreadable(`could not read the table name near "${this.near(j)}"`);
    }
    j = this.skipModifiers(j, to);
    if (t[j]?.word === 'AS') j++;
    const alias = t[j];
    if (j < to && (alias.kind === 'quoted' || (alias.kind === 'word' && !NOT_ALIAS.has(alias.word)))) {
      key = this.identifier(alias).toLowerCase();
      j++;
      if (isPunct(t[j], '(')) j = this.group(j, to, scope, frame) + 1; // column aliases
    }
    j = this.skipModifiers(j, to);
    if (key !== null) frame.items.set(key, item);
    return { next: j, item };
  }

  /** TABLESAMPLE, MySQL PARTITION and index hints, SQLite INDEXED BY / NOT INDEXED: nothing to report. */
  private skipModifiers(j: number, to: number): number {
    const t = this.tokens;
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

  /** The target of INTO (INSERT, REPLACE, MERGE, postgres SELECT INTO); MySQL's `INTO @var` and `INTO OUTFILE` name none. */
  private into(i: number, to: number, frame: Frame): number {
    const t = this.tokens;
    let j = i;
    while (['TEMP', 'TEMPORARY', 'UNLOGGED', 'TABLE'].includes(t[j]?.word)) j++;
    const token = t[j];
    if (!token || j >= to || token.word === 'OUTFILE' || token.word === 'DUMPFILE' || (token.kind !== 'word' && token.kind !== 'quoted')) {
      return j;
    }
    const parts = [this.identifier(token)];
    j++;
    while (isPunct(t[j], '.') && (t[j + 1]?.kind === 'word' || t[j + 1]?.kind === 'quoted')) {
      parts.push(this.identifier(t[j + 1]));
      j += 2;
    }
    const name = parts.map(labelPart).join('.');
    this.tables.add(name);
    frame.items.set(parts[parts.length - 1].toLowerCase(), { label: name });
    return j;
  }

  /** A name part, normalised as the dialect compares it (see `Join`). */
  private identifier(token: Token): string {
    if (token.kind === 'word') return this.dialect === 'mysql' ? token.text : token.text.toLowerCase();
    const name = unquote(token.text);
    return this.dialect === 'duckdb' || this.dialect === 'sqlite' ? name.toLowerCase() : name;
  }

  /** A short excerpt of the SQL from token `i`, for error messages. */
  private near(i: number): string {
    const token = this.tokens[Math.max(0, Math.min(i, this.tokens.length - 1))];
    if (!token) return '';
    const text = this.sql.slice(token.start, token.start + 40).replace(/\s+/g, ' ');
    return text.length < this.sql.length - token.start ? `${text}...` : text;
  }
}

/** `"a""b"` -> `a"b`, `` `x` `` -> `x`, `[x]` -> `x`, `'f.csv'` -> `f.csv`. */
function unquote(text: string): string {
  const open = text[0];
  const close = open === '[' ? ']' : open;
  const inner = text.length > 1 && text.endsWith(close) ? text.slice(1, -1) : text.slice(1);
  return open === '[' ? inner : inner.replaceAll(close + close, close);
}

/** A part that could be misread once joined with `.` (or as a `function:` label) is shown double-quoted. */
const labelPart = (part: string) => (/^$|[.:"]/.test(part) ? `"${part.replaceAll('"', '""')}"` : part);

/** Index of the `(` matching the `)` at `close`. */
function openingParen(tokens: Token[], close: number): number {
  let depth = 0;
  for (let i = close; i >= 0; i--) {
    if (isPunct(tokens[i], ')')) depth++;
    else if (isPunct(tokens[i], '(') && --depth === 0) return i;
  }
  return -1;
}
