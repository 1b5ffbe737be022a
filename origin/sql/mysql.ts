import { sideEffectCalls } from './side-effects.ts';
import { codeTokens, tokenize, type MysqlQuoting, type Token } from './tokenizer.ts';

/** `/*! ... *\/` (and MariaDB's `/*M! ... *\/`) is code to MySQL, not a comment. */
export function executableComment(tokens: Token[]): string | null {
  const found = tokens.some((t) => t.kind === 'comment' && /^\/\*M?!/.test(t.text));
  return found ? 'MySQL executable comments (/*! */) are not allowed' : null;
}

const OTHER_MODES: Array<[MysqlQuoting, string]> = [
  ['ansi_quotes', 'ANSI_QUOTES'],
  ['no_backslash_escapes', 'NO_BACKSLASH_ESCAPES'],
];

/**
 * Where a string or comment ends depends on the server's sql_mode, which the
 * analyser cannot see: `'a\' INTO OUTFILE '/x' -- '` is one string by default
 * and a file write under NO_BACKSLASH_ESCAPES. A text that reads as a plain
 * read by default is re-read under the other modes and refused when it would
 * write there. Only INTO, executable comments and side-effect calls are
 * checked: a second statement revealed that way is stopped by MySQL's
 * one-statement protocol.
 */
export function ambiguousQuoting(sql: string): string | null {
  for (const [mode, name] of OTHER_MODES) {
    const tokens = tokenize(sql, 'mysql', mode);
    const why =
      executableComment(tokens) ??
      (tokens.some((t) => t.word === 'INTO') ? 'SELECT ... INTO writes' : null) ??
      sideEffectCalls(codeTokens(tokens), 'mysql')[0]?.why ??
      null;
    if (why) return `${why} when the server runs with ${name}: write the text so its quotes read the same in every sql_mode`;
  }
  return null;
}
