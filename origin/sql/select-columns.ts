import type { Dialect } from '../drivers/types.ts';
import { readName } from './identifiers.ts';
import { splitStatements } from './statements.ts';
import { type Token, codeTokens, tokenize } from './tokenizer.ts';

/** One output column of a SELECT as its text names it. */
export interface SelectColumn {
  /** The column's name in the result: its alias, else the column referred to. */
  name: string;
  /** For a plain column reference (`title`, `f.title`): the column and its qualifier, if any. */
  source: { qualifier: string | null; column: string } | null;
}

const isPunct = (t: Token | undefined, text: string) => t?.kind === 'punct' && t.text === text;
const isName = (t: Token | undefined) => t !== undefined && (t.kind === 'word' || t.kind === 'quoted');

/** An identifier as the database reads it: decoded (identifiers.ts), unquoted words folded where the engine folds them; a name that cannot be decoded as written. */
function identifier(t: Token, dialect: Dialect): string {
  if (t.kind === 'quoted') {
    const read = readName(t, dialect);
    return read && 'name' in read ? read.name : t.text;
  }
  return dialect === 'mysql' ? t.text : t.text.toLowerCase();
}

/** Splits tokens on commas outside parentheses. */
function topLevelItems(tokens: Token[]): Token[][] {
  const items: Token[][] = [[]];
  let depth = 0;
  for (const t of tokens) {
    if (isPunct(t, '(')) depth++;
    if (isPunct(t, ')')) depth--;
    if (depth === 0 && isPunct(t, ',')) items.push([]);
    else items[items.length - 1]!.push(t);
  }
  return items;
}

/** Words that end an expression, never an alias after one. */
const NOT_ALIASES = new Set(['END', 'NULL', 'TRUE', 'FALSE']);

function column(item: Token[], dialect: Dialect): SelectColumn | null {
  let expr = item;
  let alias: string | null = null;
  const last = item[item.length - 1]!;
  const before = item[item.length - 2];
  if (item.length >= 3 && isName(last) && before?.word === 'AS') {
    alias = identifier(last, dialect);
    expr = item.slice(0, -2);
  } else if (before !== undefined && isName(last) && !NOT_ALIASES.has(last.word) && !isPunct(before, '.') && before.kind !== 'operator' && !isPunct(before, '(')) {
    // `count(*) n`, `f.title t`: a bare alias.
    alias = identifier(last, dialect);
    expr = item.slice(0, -1);
  }
  let source: SelectColumn['source'] = null;
  if (expr.length === 1 && isName(expr[0])) source = { qualifier: null, column: identifier(expr[0]!, dialect) };
  else if (expr.length >= 3 && expr.length % 2 === 1 && expr.every((t, i) => (i % 2 === 0 ? isName(t) : isPunct(t, '.')))) {
    source = { qualifier: identifier(expr[expr.length - 3]!, dialect), column: identifier(expr[expr.length - 1]!, dialect) };
  }
  const name = alias ?? source?.column ?? null;
  return name === null ? null : { name, source };
}

/**
 * The output columns a single plain SELECT names, best effort over the token
 * stream (no full parser), for documentation only: each column with an alias
 * or referring to a column by name, in order; `*` and unnamed expressions
 * are left out. null for anything else (several statements, WITH, a write,
 * text it cannot follow).
 */
export function selectColumns(sql: string, dialect: Dialect): SelectColumn[] | null {
  const statements = splitStatements(codeTokens(tokenize(sql, dialect)));
  if (statements.length !== 1) return null;
  const tokens = statements[0]!;
  if (tokens[0]?.word !== 'SELECT') return null;
  let i = 1;
  while (tokens[i]?.word === 'DISTINCT' || tokens[i]?.word === 'ALL') i++;
  let depth = 0;
  let end = tokens.length;
  for (let j = i; j < tokens.length; j++) {
    if (isPunct(tokens[j], '(')) depth++;
    else if (isPunct(tokens[j], ')')) depth--;
    else if (depth === 0 && tokens[j]!.word === 'FROM') {
      end = j;
      break;
    }
  }
  if (depth < 0) return null;
  return topLevelItems(tokens.slice(i, end)).flatMap((item) => {
    const found = item.length > 0 ? column(item, dialect) : null;
    return found ? [found] : [];
  });
}
