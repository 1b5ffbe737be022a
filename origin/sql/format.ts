import type { Dialect } from '../drivers/types.ts';
import { isPunct, leadingIndex } from './statements.ts';
import { tokenize, type Token } from './tokenizer.ts';

/**
 * A readable layout of SQL for display (the flow view), not a pretty
 * printer: keywords upper-cased, a line break before each major clause
 * (SELECT, FROM, WHERE, GROUP BY, HAVING, ORDER BY, LIMIT, joins, set
 * operators...) of a query, and each subquery indented on its own lines.
 * Only the whitespace between tokens changes: strings, quoted names, comments
 * and `:markers` keep their text, tokens written together stay together, and
 * a line comment is always followed by a line break. Clauses inside function
 * calls (`extract(year FROM d)`, `OVER (ORDER BY ...)`) stay inline.
 */
export function formatSql(sql: string, dialect: Dialect): string {
  const tokens = tokenize(sql, dialect);
  const code = tokens.filter((t) => t.kind !== 'comment');
  const codeIndex = new Map(code.map((t, i) => [t, i]));
  const keywords = dialect === 'mysql' ? COMMON_KEYWORDS : ALL_KEYWORDS;
  // One entry per open parenthesis: does it hold a query, and the indent inside it.
  const levels: Array<{ query: boolean; indent: number }> = [{ query: true, indent: 0 }];
  let out = '';
  let first = true;
  for (let k = 0; k < tokens.length; k++) {
    const token = tokens[k];
    const prev = tokens[k - 1];
    const level = levels[levels.length - 1];
    const c = codeIndex.get(token);
    let breakAt: number | null = null;
    if (prev && isLineComment(prev)) breakAt = level.indent;
    if (isPunct(token, ')') && levels.length > 1 && level.query) breakAt = levels[levels.length - 2].indent;
    else if (c !== undefined && level.query && breaksBefore(code, c)) breakAt = level.indent;
    else if (prev && isPunct(prev, '(') && level.query && levels.length > 1) breakAt = level.indent;
    else if (prev && isPunct(prev, ';')) breakAt = 0;

    if (!first) {
      if (breakAt !== null) out = `${out.trimEnd()}\n${' '.repeat(breakAt)}`;
      else if (sql.slice(prev.end, token.start) !== '') out += ' ';
    }
    first = false;
    out += shown(token, code, c, keywords);

    if (isPunct(token, '(')) {
      const query = c !== undefined && opensQuery(code, c + 1);
      levels.push({ query, indent: query ? level.indent + 2 : level.indent });
    } else if (isPunct(token, ')') && levels.length > 1) {
      levels.pop();
    }
  }
  return out.trim();
}

const isLineComment = (t: Token) => t.kind === 'comment' && !t.text.startsWith('/*');

const QUERY_LEADS = new Set(['SELECT', 'WITH', 'VALUES', 'TABLE', 'FROM', 'INSERT', 'UPDATE', 'DELETE']);
const opensQuery = (code: Token[], at: number) => QUERY_LEADS.has(code[leadingIndex(code, at)]?.word ?? '');

const CLAUSES = new Set(['SELECT', 'FROM', 'WHERE', 'HAVING', 'WINDOW', 'QUALIFY', 'LIMIT', 'RETURNING', 'VALUES', 'SET']);
const SET_OPERATORS = new Set(['UNION', 'INTERSECT', 'EXCEPT']);
const JOIN_WORDS = new Set(['NATURAL', 'INNER', 'LEFT', 'RIGHT', 'FULL', 'OUTER', 'CROSS', 'SEMI', 'ANTI', 'ASOF', 'POSITIONAL']);

/** Whether the code token at `i` opens a clause of its query. */
function breaksBefore(code: Token[], i: number): boolean {
  const word = code[i].word;
  const prev = code[i - 1];
  if (!word || !prev || isPunct(prev, '(') || isPunct(prev, '.') || isPunct(prev, ';')) return false;
  if (word === 'FROM') {
    // `DELETE FROM`, `IS [NOT] DISTINCT FROM` read as one phrase.
    return prev.word !== 'DELETE' && prev.word !== 'DISTINCT';
  }
  if (CLAUSES.has(word) || SET_OPERATORS.has(word)) return !(word === 'VALUES' && prev.word === 'DEFAULT');
  if (word === 'GROUP' || word === 'ORDER') return code[i + 1]?.word === 'BY';
  if (word === 'JOIN' || word === 'STRAIGHT_JOIN') return !JOIN_WORDS.has(prev.word);
  if (JOIN_WORDS.has(word) && !isPunct(code[i + 1], '(') && !JOIN_WORDS.has(prev.word)) {
    let j = i;
    while (JOIN_WORDS.has(code[j]?.word ?? '')) j++;
    return code[j]?.word === 'JOIN';
  }
  return false;
}

/** Words that are keywords in all four dialects; MySQL table names are case-sensitive, so only these change case there. */
const COMMON_KEYWORDS = new Set([
  ...['SELECT', 'FROM', 'WHERE', 'AND', 'OR', 'NOT', 'IN', 'IS', 'NULL', 'AS', 'ON', 'USING', 'JOIN', 'INNER', 'LEFT'],
  ...['RIGHT', 'OUTER', 'CROSS', 'NATURAL', 'GROUP', 'BY', 'HAVING', 'ORDER', 'ASC', 'DESC', 'LIMIT', 'UNION', 'ALL'],
  ...['INTERSECT', 'EXCEPT', 'DISTINCT', 'WITH', 'RECURSIVE', 'CASE', 'WHEN', 'THEN', 'ELSE', 'BETWEEN', 'LIKE'],
  ...['EXISTS', 'INSERT', 'INTO', 'VALUES', 'UPDATE', 'SET', 'DELETE', 'TRUE', 'FALSE', 'OVER', 'PARTITION'],
  ...['WINDOW', 'LATERAL', 'STRAIGHT_JOIN'],
]);
const ALL_KEYWORDS = new Set([
  ...COMMON_KEYWORDS,
  ...['END', 'CAST', 'FULL', 'OFFSET', 'FETCH', 'RETURNING', 'FILTER', 'QUALIFY', 'ILIKE', 'NULLS', 'SEMI', 'ANTI'],
  ...['ASOF', 'POSITIONAL'],
]);

/** A keyword upper-cased unless it is part of a qualified name (`t.order`); every other token as written. */
function shown(token: Token, code: Token[], c: number | undefined, keywords: ReadonlySet<string>): string {
  if (token.kind !== 'word' || c === undefined || !keywords.has(token.word)) return token.text;
  if (isPunct(code[c - 1], '.') || isPunct(code[c + 1], '.')) return token.text;
  return token.word;
}
