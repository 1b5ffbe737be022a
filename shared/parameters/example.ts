/**
 * An example value that satisfies a rule, for generated docs and request
 * collections: the default, else the first enum item, else a value inside the
 * bounds. Text with a pattern gets a best-effort match, or null.
 */
import { patternExample } from './pattern-example.ts';
import { valueKind, type ParameterRule } from './types.ts';

const SAMPLE_NUMBER = 1;
const SAMPLE_TEXT = 'example';

const clamp = (value: number, low: number, high: number) => Math.min(Math.max(value, low), high);

/** An integer inside min/max, or undefined when the bounds hold none. */
function integerExample(rule: ParameterRule): number | undefined {
  const low = rule.min === undefined ? -Infinity : Math.ceil(rule.min);
  const high = rule.max === undefined ? Infinity : Math.floor(rule.max);
  return low > high ? undefined : clamp(SAMPLE_NUMBER, low, high);
}

const numberExample = (rule: ParameterRule): number =>
  clamp(SAMPLE_NUMBER, rule.min ?? -Infinity, rule.max ?? Infinity);

function textExample(rule: ParameterRule): string | null {
  if (rule.pattern !== undefined) return patternExample(rule.pattern, rule.min_length, rule.max_length);
  let text = SAMPLE_TEXT;
  if (rule.min_length !== undefined && rule.min_length > text.length) text += 'x'.repeat(rule.min_length - text.length);
  if (rule.max_length !== undefined && rule.max_length < text.length) text = text.slice(0, rule.max_length);
  return text;
}

/** An example value satisfying the rule; null where a pattern defeats the generator. */
export function exampleValue(rule: ParameterRule): unknown {
  if (rule.default !== undefined) return rule.default;
  if (rule.enum !== undefined && rule.enum.length > 0) return rule.enum[0];
  switch (valueKind(rule)) {
    case 'int':
      return integerExample(rule) ?? Math.ceil(rule.min ?? SAMPLE_NUMBER);
    case 'float':
      return numberExample(rule);
    case 'number':
      return integerExample(rule) ?? numberExample(rule);
    case 'bool':
      return true;
    case 'str':
    case 'text':
      return textExample(rule);
    case 'any':
      return SAMPLE_TEXT;
  }
}
