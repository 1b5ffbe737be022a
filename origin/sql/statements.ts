import type { Token } from './tokenizer.ts';

export const isPunct = (token: Token | undefined, text: string) =>
  token?.kind === 'punct' && token.text === text;

/**
 * Splits code tokens (comments already removed) into statements at every `;`
 * and drops empty ones (`select 1;;`). A `;` inside parentheses splits too: no
 * read statement can hold one, and counting it only makes the guard stricter.
 */
export function splitStatements(code: Token[]): Token[][] {
  const statements: Token[][] = [];
  let current: Token[] = [];
  for (const token of code) {
    if (isPunct(token, ';')) {
      if (current.length > 0) statements.push(current);
      current = [];
    } else {
      current.push(token);
    }
  }
  if (current.length > 0) statements.push(current);
  return statements;
}

/** Index of the first token after any opening parentheses (`((SELECT ...` -> SELECT). */
export function leadingIndex(tokens: Token[], from = 0): number {
  let i = from;
  while (isPunct(tokens[i], '(')) i++;
  return i;
}

/** Index of the `)` closing the `(` at `open`; `tokens.length` when it is never closed. */
export function closingParen(tokens: Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    if (isPunct(tokens[i], '(')) depth++;
    else if (isPunct(tokens[i], ')') && --depth === 0) return i;
  }
  return tokens.length;
}

/** Paren depth before each token, so clauses can be matched at the statement's own level. */
export function depths(tokens: Token[]): number[] {
  let depth = 0;
  return tokens.map((token) => {
    if (isPunct(token, ')')) depth = Math.max(0, depth - 1);
    const before = depth;
    if (isPunct(token, '(')) depth++;
    return before;
  });
}
