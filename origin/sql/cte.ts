import { closingParen, isPunct } from './statements.ts';
import type { Token } from './tokenizer.ts';

export interface WithClause {
  /** Token ranges `[start, end)` of each CTE body, inside its parentheses. */
  bodies: Array<[number, number]>;
  /** Index of the statement the CTEs feed (SELECT, or INSERT/UPDATE/... for a writable one). */
  mainStart: number;
}

/**
 * Walks `WITH [RECURSIVE] name [(cols)] [USING KEY (...)] AS [NOT] [MATERIALIZED] (body)
 * [SEARCH ... SET col] [CYCLE ... USING col], ...` to find where the main
 * statement starts, looking no further than `end`. Null when the text does
 * not have that shape: the guard then refuses rather than guess what runs.
 */
export function parseWith(tokens: Token[], withAt: number, end: number): WithClause | null {
  const bodies: Array<[number, number]> = [];
  // Index just past the first `word` at or after `i` outside parentheses.
  const skipPast = (i: number, word: string) => {
    let j = i;
    while (j < end && tokens[j].word !== word) j = isPunct(tokens[j], '(') ? closingParen(tokens, j) + 1 : j + 1;
    return j + 1;
  };
  let i = withAt + 1;
  if (tokens[i]?.word === 'RECURSIVE') i++;
  for (;;) {
    const name = tokens[i];
    if (i >= end || (name.kind !== 'word' && name.kind !== 'quoted')) return null;
    // Column lists and DuckDB's USING KEY (...) sit between the name and AS.
    i = skipPast(i + 1, 'AS');
    if (tokens[i]?.word === 'NOT') i++;
    if (tokens[i]?.word === 'MATERIALIZED') i++;
    if (i >= end || !isPunct(tokens[i], '(')) return null;
    const close = closingParen(tokens, i);
    if (close >= end) return null;
    bodies.push([i + 1, close]);
    i = close + 1;
    while (i < end && (tokens[i].word === 'SEARCH' || tokens[i].word === 'CYCLE')) {
      i = skipPast(i, tokens[i].word === 'SEARCH' ? 'SET' : 'USING') + 1;
    }
    if (i >= end || !isPunct(tokens[i], ',')) break;
    i++;
  }
  return i < end ? { bodies, mainStart: i } : null;
}
