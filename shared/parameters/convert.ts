/**
 * Turning one supplied value into a typed value: query-string text is converted
 * by type, JSON values must already have the type. Rules other than the type
 * are checked afterwards (check.ts).
 */
import { NUL_PROBLEM, hasNul } from '../nul.ts';
import type { ValueKind } from './types.ts';

export type Converted = { value: unknown } | { problem: string };

const INTEGER_TEXT = /^[+-]?\d+$/;
const NUMBER_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** `int` is a signed 64-bit integer, as every database binds it (PostgreSQL's bigint, MySQL's BIGINT...). */
export const INT_MIN = -(2n ** 63n);
export const INT_MAX = 2n ** 63n - 1n;
const INT_PROBLEM = `must be an integer from ${INT_MIN} to ${INT_MAX}`;

const inIntRange = (value: number | bigint): boolean => {
  const big = typeof value === 'bigint' ? value : BigInt(value);
  return big >= INT_MIN && big <= INT_MAX;
};

/** Integer text as a number, or a bigint outside the JS safe range. */
function integerFromText(text: string): number | bigint {
  const big = BigInt(text);
  if (big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(big);
  return big;
}

/**
 * A whole number for a `number` parameter: exact within 64 bits; past them a
 * double, as any other number that size (no database binds a wider integer).
 */
const numberFromInteger = (value: number | bigint): number | bigint => (inIntRange(value) ? value : Number(value));

/** Text as a value, unless it holds a NUL (shared/nul.ts): refused on every connection type alike. */
const textValue = (text: string): Converted => (hasNul(text) ? { problem: NUL_PROBLEM } : { value: text });

function numberFromText(text: string): number | undefined {
  if (!NUMBER_TEXT.test(text)) return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value + 0 : undefined; // + 0 turns -0 into 0
}

/** The message when a value is not of the kind. `fromText`: the value was query-string text. */
export function kindProblem(kind: ValueKind, fromText: boolean): string {
  switch (kind) {
    case 'int':
      return 'must be an integer';
    case 'float':
    case 'number':
      return 'must be a number';
    case 'bool':
      return fromText ? 'must be true, false, 1 or 0' : 'must be true or false';
    case 'str':
    case 'text':
      return 'must be a string';
    case 'any':
      return 'must be a single value';
  }
}

/** Query-string text converted to the kind. */
export function fromText(kind: ValueKind, text: string): Converted {
  switch (kind) {
    case 'int': {
      if (!INTEGER_TEXT.test(text)) return { problem: kindProblem(kind, true) };
      const value = integerFromText(text);
      return inIntRange(value) ? { value } : { problem: INT_PROBLEM };
    }
    case 'float': {
      const value = numberFromText(text);
      return value === undefined ? { problem: kindProblem(kind, true) } : { value };
    }
    case 'number': {
      if (INTEGER_TEXT.test(text)) return { value: numberFromInteger(integerFromText(text)) };
      const value = numberFromText(text);
      return value === undefined ? { problem: kindProblem(kind, true) } : { value };
    }
    case 'bool': {
      const lower = text.toLowerCase();
      if (lower === 'true' || lower === '1') return { value: true };
      if (lower === 'false' || lower === '0') return { value: false };
      return { problem: kindProblem(kind, true) };
    }
    case 'str':
    case 'text':
    case 'any':
      return textValue(text);
  }
}

const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** A JSON value (or a claim) checked against the kind; nothing is converted but -0 and bigint floats. */
export function fromJson(kind: ValueKind, value: unknown): Converted {
  const problem = { problem: kindProblem(kind, false) };
  switch (kind) {
    case 'int':
      if (typeof value !== 'bigint' && !Number.isInteger(value)) return problem;
      return inIntRange(value as number | bigint) ? { value: normalZero(value) } : { problem: INT_PROBLEM };
    case 'float':
      if (typeof value === 'bigint') return { value: Number(value) };
      return isFiniteNumber(value) ? { value: value + 0 } : problem;
    case 'number':
      if (typeof value === 'bigint') return { value: numberFromInteger(value) };
      return isFiniteNumber(value) ? { value: value + 0 } : problem;
    case 'bool':
      return typeof value === 'boolean' ? { value } : problem;
    case 'str':
    case 'text':
      return typeof value === 'string' ? textValue(value) : problem;
    case 'any':
      if (typeof value === 'string') return textValue(value);
      return isSingleValue(value) ? { value: normalZero(value) } : problem;
  }
}

/** A value an untyped parameter (or an enum) may hold: a string, a finite number, a bigint or a boolean. */
export const isSingleValue = (value: unknown): boolean =>
  typeof value === 'string' || typeof value === 'boolean' || typeof value === 'bigint' || isFiniteNumber(value);

const normalZero = (value: unknown) => (typeof value === 'number' ? value + 0 : value);

/** How a value is converted: the request's query string, JSON (a body, a claim, a saved default). */
export type Source = 'query' | 'json';

/**
 * Converts a supplied value. A query-string argument given several times
 * arrives as an array and is refused; a non-text value on the query source is
 * read as JSON (a caller that already parsed it).
 */
export function convert(kind: ValueKind, value: unknown, source: Source): Converted {
  if (Array.isArray(value)) return { problem: 'must be a single value' };
  if (source === 'query' && typeof value === 'string') return fromText(kind, value);
  return fromJson(kind, value);
}
