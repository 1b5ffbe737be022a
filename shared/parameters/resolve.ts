/**
 * The values a request supplied, validated and converted by the rules. Every
 * problem is listed and nothing partial is returned: a request that breaks a
 * rule never reaches the database.
 */
import { checkRules } from './check.ts';
import { convert, type Source } from './convert.ts';
import { recordOf, valueKind, type ParameterRule, type Problems, type Rules } from './types.ts';

export interface ResolveOptions {
  /** 'query': query-string text, converted by type. 'json': values that must already have the type. */
  source: Source;
  /** Claims of the caller's sign-in token; they alone feed from_claim parameters. */
  claims?: Record<string, unknown> | null;
}

type Resolved = { value: unknown } | { problems: string[] };

/** A value is given when the key is the object's own and holds neither undefined nor null. */
const given = (values: Record<string, unknown> | null | undefined, key: string): boolean =>
  values != null && Object.hasOwn(values, key) && values[key] !== undefined && values[key] !== null;

function checked(rule: ParameterRule, value: unknown, source: Source, prefix = ''): Resolved {
  const kind = valueKind(rule);
  const converted = convert(kind, value, source);
  if ('problem' in converted) return { problems: [prefix + converted.problem] };
  const result = checkRules(rule, converted.value, kind === 'any' && source === 'query' && typeof value === 'string');
  if (result.problems.length > 0) return { problems: result.problems.map((problem) => prefix + problem) };
  return { value: result.value };
}

type Values = Record<string, unknown>;

/** A from_claim parameter: the claim is the only source; a value in the request is refused. */
function fromClaim(name: string, rule: ParameterRule, claim: string, supplied: Values, claims?: Values | null): Resolved {
  const problems: string[] = [];
  if (given(supplied, name)) problems.push('comes from the sign-in token and cannot be given in the request');
  if (!given(claims, claim)) problems.push(`requires a sign-in token with claim ${claim}`);
  else {
    const result = checked(rule, claims![claim], 'json', `claim ${claim} `);
    if ('problems' in result) problems.push(...result.problems);
    else if (problems.length === 0) return result;
  }
  return { problems };
}

function resolveOne(name: string, rule: ParameterRule, supplied: Values, options: ResolveOptions): Resolved {
  if (rule.from_claim !== undefined) return fromClaim(name, rule, rule.from_claim, supplied, options.claims);
  if (given(supplied, name)) return checked(rule, supplied[name], options.source);
  if (rule.default !== undefined) return { value: rule.default };
  if (rule.required) return { problems: ['is required'] };
  return { value: null };
}

/**
 * Validates and converts the supplied values. Names the rules do not declare
 * are ignored (undeclared markers are the caller's business). Null counts as
 * no value: the default applies, an optional parameter binds null, a required
 * one is missing. Optional parameters with no value and no default are null.
 */
export function resolveValues(
  rules: Rules,
  supplied: Record<string, unknown>,
  options: ResolveOptions,
): { values: Record<string, unknown> } | { errors: Problems } {
  const values: [string, unknown][] = [];
  const errors: [string, string][] = [];
  for (const [name, rule] of Object.entries(rules)) {
    const result = resolveOne(name, rule, supplied, options);
    if ('problems' in result) errors.push([name, result.problems.join('; ')]);
    else values.push([name, result.value]);
  }
  return errors.length > 0 ? { errors: recordOf(errors) } : { values: recordOf(values) };
}
