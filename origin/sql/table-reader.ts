/** The table reader's walk over a statement's parenthesis levels, its CTEs and INTO targets; FROM lists are read in `from-items.ts`. */
import type { Dialect } from '../drivers/types.ts';
import { parseWith } from './cte.ts';
import { Frame, fromItem, fromList, type Walker } from './from-items.ts';
import { readName } from './identifiers.ts';
import { closingParen, depths, isPunct, leadingIndex } from './statements.ts';
import { DYNAMIC, labelPart, NESTED_LEADS, openingParen, QUERY_LEADS, Unreadable, unquote } from './table-words.ts';
import type { Join } from './tables.ts';
import type { Token } from './tokenizer.ts';

export { Unreadable };

const MAX_DEPTH = 256;

/**
 * The walk behind `analyzeTables` (see `tables.ts` for what it reports):
 * each parenthesis level is a query (its FROM, JOIN, INTO, UPDATE, USING and
 * TABLE clauses name tables) or an expression (only nested levels can), and
 * CTE names are scoped as the databases scope them. Its state and the
 * methods of `Walker` are public for the FROM lists, read in `from-items.ts`.
 */
export class Reader implements Walker {
  readonly tables = new Set<string>();
  readonly joins: Join[] = [];
  dynamic = false;
  tokens: Token[] = [];

  constructor(
    readonly sql: string,
    readonly dialect: Dialect,
  ) {}

  statement(tokens: Token[]): void {
    this.tokens = tokens;
    if (depths(tokens).some((depth) => depth > MAX_DEPTH)) throw new Unreadable(`parentheses nest more than ${MAX_DEPTH} deep`);
    const lead = tokens[leadingIndex(tokens)]?.word ?? '';
    this.walk(0, tokens.length, new Set(), new Frame(null), QUERY_LEADS.has(lead) || this.isQueryAt(0, tokens.length));
  }

  /** One parenthesis level `[from, to)`: a query (clauses name tables) or an expression (only nested levels can). */
  walk(from: number, to: number, scope: ReadonlySet<string>, outer: Frame, isQuery: boolean): void {
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
      if ((token.kind === 'word' || token.kind === 'quoted') && isPunct(t[i + 1], '(') && DYNAMIC.has(this.identifier(token).toLowerCase())) this.dynamic = true;
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
        i = fromList(this, i + 1, to, scope, frame, true).next;
        continue;
      } else if (word === 'UPDATE' && i === lead) {
        while (['LOW_PRIORITY', 'IGNORE', 'OR'].includes(t[i + 1]?.word)) i += t[i + 1].word === 'OR' ? 2 : 1;
        i = fromList(this, i + 1, to, scope, frame, true).next;
        continue;
      } else if (word === 'USING' && ['DELETE', 'MERGE'].includes(t[lead].word) && !isPunct(t[i + 1], '(')) {
        i = fromList(this, i + 1, to, scope, frame, true).next;
        continue;
      } else if (word === 'INTO') {
        i = this.into(i + 1, to, frame);
        continue;
      } else if (word === 'TABLE' && (i === lead || ['UNION', 'INTERSECT', 'EXCEPT', 'ALL', 'DISTINCT'].includes(t[i - 1]?.word))) {
        i = fromItem(this, i + 1, to, scope, frame).next;
        continue;
      } else if (word === 'JOIN' || word === 'STRAIGHT_JOIN') {
        throw new Unreadable(`a JOIN outside any FROM clause near "${this.near(i)}"`);
      }
      i++;
    }
  }

  /** A parenthesised level starting at `open`; returns its `)`. */
  group(open: number, to: number, scope: ReadonlySet<string>, frame: Frame): number {
    const close = closingParen(this.tokens, open);
    if (close >= to) throw new Unreadable('unbalanced parentheses');
    this.walk(open + 1, close, scope, frame, this.isQueryAt(open + 1, close));
    return close;
  }

  isQueryAt(from: number, to: number): boolean {
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

  /** The target of INTO (INSERT, REPLACE, MERGE, postgres SELECT INTO); MySQL's `INTO @var` and `INTO OUTFILE` name none. */
  private into(i: number, to: number, frame: Frame): number {
    const t = this.tokens;
    let j = i;
    while (['TEMP', 'TEMPORARY', 'UNLOGGED', 'TABLE'].includes(t[j]?.word)) j++;
    const token = t[j];
    if (!token || j >= to || token.word === 'OUTFILE' || token.word === 'DUMPFILE' || (token.kind !== 'word' && token.kind !== 'quoted')) {
      return j;
    }
    const { parts, next } = this.dottedName(j);
    const name = parts.map(labelPart).join('.');
    this.tables.add(name);
    frame.items.set(parts[parts.length - 1].toLowerCase(), { label: name });
    return next;
  }

  /** The parts of the dotted name starting at token `i` (`schema.table`, `"db"."t"`), and the token after it. */
  dottedName(i: number): { parts: string[]; next: number } {
    const t = this.tokens;
    const parts = [this.identifier(t[i])];
    let j = i + 1;
    while (isPunct(t[j], '.') && (t[j + 1]?.kind === 'word' || t[j + 1]?.kind === 'quoted')) {
      parts.push(this.identifier(t[j + 1]));
      j += 2;
    }
    return { parts, next: j };
  }

  /**
   * A name part, decoded as the engine reads it (identifiers.ts) and
   * normalised as the dialect compares it (see `Join`); a name that cannot be
   * decoded makes the text unreadable.
   */
  identifier(token: Token): string {
    if (token.kind === 'word') return this.dialect === 'mysql' ? token.text : token.text.toLowerCase();
    const read = token.kind === 'quoted' ? readName(token, this.dialect) : { name: unquote(token.text) };
    if (!read || 'unreadable' in read) throw new Unreadable(read ? `the name ${read.unreadable}` : `could not read the name near "${token.text}"`);
    return this.dialect === 'duckdb' || this.dialect === 'sqlite' ? read.name.toLowerCase() : read.name;
  }

  /** A short excerpt of the SQL from token `i`, for error messages. */
  near(i: number): string {
    const token = this.tokens[Math.max(0, Math.min(i, this.tokens.length - 1))];
    if (!token) return '';
    const text = this.sql.slice(token.start, token.start + 40).replace(/\s+/g, ' ');
    return text.length < this.sql.length - token.start ? `${text}...` : text;
  }
}
