/**
 * `pattern` rules on RE2 (re2js, pure JavaScript, so the origin and the
 * Worker run the same engine): no backtracking, so matching time grows with
 * the value's length times the size of the compiled pattern, never faster.
 * Both factors are bounded: the program size on save, and their product on
 * each check, so one check stays a fraction of a second whatever the value.
 * RE2 has no lookarounds and no back references; such patterns are refused
 * on save with a message that says so.
 */
import { RE2JS, RE2JSException, RE2JSSyntaxException } from 're2js';

/** Compiled patterns by source: a saved query's rules are checked on every request. */
const compiled = new Map<string, RE2JS>();
const COMPILED_MAX = 1000;

/** Largest compiled pattern accepted (RE2 instructions; counted repetitions expand: `.{1,500}` is 1001). */
export const MAX_PROGRAM = 2000;
/** Value length × program size one check may cost: about 0.3 s at worst on a slow core, measured. */
const MAX_WORK = 2_000_000;

/** A pattern RE2 refuses, with the reason in words a query author can act on. */
export class PatternRefused extends Error {}

function reason(error: RE2JSException): string {
  if (!(error instanceof RE2JSSyntaxException)) return error.message;
  const input = error.input ?? '';
  if (input.startsWith('(?=') || input.startsWith('(?!')) return 'lookahead ((?=…), (?!…)) is not supported';
  if (input.startsWith('(?<=') || input.startsWith('(?<!')) return 'lookbehind ((?<=…), (?<!…)) is not supported';
  if (input[0] === '\\' && '123456789k'.includes(input[1] ?? '')) return 'back references (\\1, \\k<name>) are not supported';
  if (input === '\\u') return 'invalid escape \\u (write a code point as \\x{20AC})';
  return input === '' ? error.error : `${error.error}: ${input}`;
}

/** The compiled pattern; throws PatternRefused when RE2 does not accept it. */
export function compilePattern(pattern: string): RE2JS {
  let regex = compiled.get(pattern);
  if (regex) return regex;
  try {
    regex = RE2JS.compile(pattern);
  } catch (error) {
    if (error instanceof RE2JSException) throw new PatternRefused(reason(error));
    throw error;
  }
  if (compiled.size >= COMPILED_MAX) compiled.clear();
  compiled.set(pattern, regex);
  return regex;
}

/** Why the pattern is refused on save (RE2 does not accept it, or it is too large), or undefined. */
export function patternProblem(pattern: string): string | undefined {
  let size: number;
  try {
    size = compilePattern(pattern).programSize();
  } catch (error) {
    if (error instanceof PatternRefused) return `pattern is not accepted: ${error.message} (patterns use RE2 syntax)`;
    throw error;
  }
  if (size > MAX_PROGRAM) {
    return `pattern is too large once compiled (${size} steps, at most ${MAX_PROGRAM}): use min_length and max_length for lengths rather than large repetition counts`;
  }
  return undefined;
}

/** The longest value (in characters) checked against the pattern; a longer one is refused unmatched. */
export const longestChecked = (pattern: string): number => Math.floor(MAX_WORK / compilePattern(pattern).programSize());

/** Whether the whole text matches (the spec: "the whole value must match"), not some part of it. */
export const matchesWhole = (pattern: string, text: string): boolean => compilePattern(pattern).testExact(text);
