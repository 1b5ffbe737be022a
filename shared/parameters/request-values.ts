import { NUL_PROBLEM, hasNul } from '../nul.ts';
import type { Source } from './convert.ts';
import { resolveValues } from './resolve.ts';
import type { Rules } from './types.ts';

/**
 * The values a saved-query run binds, from what the request supplied: the
 * declared parameters through their rules; `:markers` the SQL uses without
 * declaring them required and passed through as supplied; legacy `{name}`
 * placeholders not declared take a supplied value when there is one. Text
 * holding a NUL is refused everywhere. Names the query does not use are
 * ignored. The rules of the run path (origin/services/run/prepare-saved.ts), shared
 * so the edge keys its cache by the very values the origin binds.
 */
export interface RequestValuesInput {
  rules: Rules;
  /** The SQL's `:markers` for the dialect it runs on. */
  markers: readonly string[];
  /** The SQL's legacy `{name}` placeholders. */
  legacy?: readonly string[];
  supplied: Record<string, unknown>;
  source: Source;
  claims?: Record<string, unknown> | null;
  /** Problems the transport found itself (a repeated argument), listed with the rest. */
  problems?: Record<string, string>;
}

/** Why a value bound as supplied (no rules) is refused, or null. */
function passThroughProblem(value: unknown): string | null {
  if (value !== null && typeof value === 'object') return 'must be a single value';
  if (typeof value === 'string' && hasNul(value)) return NUL_PROBLEM;
  return null;
}

export function requestValues(input: RequestValuesInput): { values: Record<string, unknown> } | { errors: Record<string, string> } {
  const { rules, supplied } = input;
  const given = (name: string) => Object.hasOwn(supplied, name) && supplied[name] !== undefined;
  const declared = Object.fromEntries(Object.keys(rules).filter(given).map((name) => [name, supplied[name]]));
  const resolved = resolveValues(rules, declared, { source: input.source, claims: input.claims ?? null });
  const errors: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if ('errors' in resolved) Object.assign(errors, resolved.errors);
  else Object.assign(values, resolved.values);
  // A repeated argument is reported as such, not as the missing value it leaves behind.
  Object.assign(errors, input.problems);

  for (const name of input.markers) {
    if (Object.hasOwn(rules, name) || Object.hasOwn(errors, name)) continue;
    const problem = given(name) ? passThroughProblem(supplied[name]) : 'is required';
    if (problem) errors[name] = problem;
    else values[name] = supplied[name];
  }
  for (const name of input.legacy ?? []) {
    if (Object.hasOwn(rules, name) || Object.hasOwn(values, name) || Object.hasOwn(errors, name) || !given(name)) continue;
    const problem = passThroughProblem(supplied[name]);
    if (problem) errors[name] = problem;
    else values[name] = supplied[name];
  }
  return Object.keys(errors).length > 0 ? { errors } : { values };
}
