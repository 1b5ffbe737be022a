import { checkRules, sameValue, showValue } from '../../../shared/parameters/check.ts';
import { type Rules, listsValues } from '../../../shared/parameters/index.ts';
import type { AppDeps } from '../../deps.ts';
import { badRequest } from '../../errors.ts';
import { type ValueList, valueList } from './lists.ts';
import { problemOf } from './read.ts';

/** Allowed values named in a refusal; the count says how many there are in all. */
const SHOWN = 20;

/**
 * Each bound value of a parameter that lists its values must be one of
 * them (besides its other rules, checked before). A value not in the list
 * as last read reads the list again (at most once per REFRESH_MS), so a
 * value inserted a moment ago is accepted. The parameter's default is the
 * author's and passes. Every problem at once: 400 `errors`, as the other
 * parameter rules answer. Binds the matching item, as `enum` does for
 * query-string text.
 */
export async function checkListedValues(deps: AppDeps, at: { query: string; version: number; connection: string; collection?: string }, rules: Rules, values: Record<string, unknown>): Promise<void> {
  const errors: Record<string, string> = {};
  for (const [param, rule] of Object.entries(rules)) {
    if (!listsValues(rule) || !Object.hasOwn(values, param)) continue;
    const value = values[param];
    if (value === null || value === undefined || (rule.default !== undefined && sameValue(rule.default, value))) continue;
    const ref = { ...at, param, rule };
    let list: ValueList;
    try {
      list = await valueList(deps, ref);
      let match = matchOf(list, value, rule.type === undefined);
      if (match === undefined) {
        list = await valueList(deps, ref, 'stale');
        match = matchOf(list, value, rule.type === undefined);
      }
      if (match !== undefined) {
        values[param] = match.value;
        continue;
      }
    } catch (err) {
      errors[param] = `its allowed values could not be read: ${problemOf(err).message}`;
      continue;
    }
    errors[param] = notListed(list);
  }
  if (Object.keys(errors).length > 0) throw badRequest('Invalid parameters', { errors });
}

function matchOf(list: ValueList, value: unknown, untyped: boolean): { value: unknown } | undefined {
  const checked = checkRules({ required: false, enum: list.items }, value, untyped && typeof value === 'string');
  return checked.problems.length === 0 ? { value: checked.value } : undefined;
}

/** The refusal: the first allowed values and how many there are. */
export function notListed(list: ValueList): string {
  if (list.count === 0) return 'must be one of its listed values, and its values_query lists none';
  const shown = list.items.slice(0, SHOWN).map(showValue).join(', ');
  return list.count <= SHOWN ? `must be one of: ${shown}` : `must be one of the ${list.count} listed values, such as: ${shown}, …`;
}
