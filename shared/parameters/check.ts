/**
 * The rules other than the type, checked on a value that already has its type:
 * enum, min/max for numbers, min_length/max_length/pattern for text. Used for
 * request values and for saved defaults and enum lists alike.
 */
import { fromText } from './convert.ts';
import { longestChecked, matchesWhole } from './pattern.ts';
import type { ParameterRule } from './types.ts';

/** The pattern as messages show it: anchored at both ends, as it is applied, with one anchor at each end. */
export function displayPattern(pattern: string): string {
  const alternation = pattern.includes('|');
  const start = !alternation && pattern.startsWith('^') ? '' : '^';
  const end = !alternation && endsWithAnchor(pattern) ? '' : '$';
  return `${start}${alternation ? `(?:${pattern})` : pattern}${end}`;
}

/** A trailing `$` after an even number of backslashes is an anchor; `\$` is a dollar sign. */
function endsWithAnchor(pattern: string): boolean {
  if (!pattern.endsWith('$')) return false;
  let backslashes = 0;
  for (let i = pattern.length - 2; i >= 0 && pattern[i] === '\\'; i--) backslashes++;
  return backslashes % 2 === 0;
}

/** Length of text in Unicode code points. */
export const codePointLength = (text: string): number => {
  let length = 0;
  for (const _ of text) length++;
  return length;
};

const isNumeric = (value: unknown): value is number | bigint => typeof value === 'number' || typeof value === 'bigint';

const isIntegral = (value: number | bigint) => typeof value === 'bigint' || Number.isInteger(value);

/** Equality after conversion: numbers (and bigints) compare by value, everything else strictly. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (isNumeric(a) && isNumeric(b)) {
    if (isIntegral(a) && isIntegral(b)) return BigInt(a) === BigInt(b);
    return Number(a) === Number(b);
  }
  return a === b;
}

/**
 * Whether query-string text names an item of an untyped enum: the item's own
 * text, a number written any way that has its value, or a boolean in any case.
 */
function textNames(item: unknown, text: string): boolean {
  if (typeof item === 'string') return item === text;
  if (typeof item === 'boolean') return text.toLowerCase() === String(item);
  if (isNumeric(item)) {
    const converted = fromText('number', text);
    return 'value' in converted && sameValue(converted.value, item);
  }
  return false;
}

/** How values are shown in messages. */
export const showValue = (value: unknown): string => (typeof value === 'string' ? value : String(value));

export interface Checked {
  /** The value to bind: the matching enum item where text named an item of an untyped enum. */
  value: unknown;
  problems: string[];
}

/**
 * Checks a typed value against the rule. `untypedText`: the value is
 * query-string text for an untyped parameter, so it may name a non-text enum item.
 */
export function checkRules(rule: ParameterRule, value: unknown, untypedText = false): Checked {
  const problems: string[] = [];
  let bound = value;

  if (rule.enum) {
    const match = rule.enum.find((item) =>
      untypedText && typeof value === 'string' ? textNames(item, value) : sameValue(item, value),
    );
    if (match === undefined) problems.push(`must be one of: ${rule.enum.map(showValue).join(', ')}`);
    else bound = match;
  }

  if (isNumeric(bound)) {
    if (rule.min !== undefined && bound < rule.min) problems.push(`must be at least ${rule.min}`);
    if (rule.max !== undefined && bound > rule.max) problems.push(`must be at most ${rule.max}`);
  }

  if (typeof bound === 'string') {
    const length = rule.min_length !== undefined || rule.max_length !== undefined ? codePointLength(bound) : 0;
    if (rule.min_length !== undefined && length < rule.min_length) {
      problems.push(`must be at least ${rule.min_length} characters long`);
    }
    if (rule.max_length !== undefined && length > rule.max_length) {
      problems.push(`must be at most ${rule.max_length} characters long`);
    }
    if (rule.pattern !== undefined) {
      const problem = patternMismatch(rule.pattern, bound);
      if (problem) problems.push(problem);
    }
  }

  return { value: bound, problems };
}

/** A value longer than the pattern's work bound allows (pattern.ts) is refused without matching. */
function patternMismatch(pattern: string, text: string): string | undefined {
  const longest = longestChecked(pattern);
  if (text.length > longest && codePointLength(text) > longest) {
    return `is too long to be checked against the pattern (at most ${longest} characters)`;
  }
  return matchesWhole(pattern, text) ? undefined : `must match the pattern ${displayPattern(pattern)}`;
}
