import { sameValue } from '../../../shared/parameters/check.ts';
import { type ParameterRule, type Rules, listsValues } from '../../../shared/parameters/index.ts';
import type { AppDeps } from '../../deps.ts';
import { type ListRef, type ValueList, shownAsJson, valueList } from './lists.ts';

/** A saved version whose rules are shown: where its lists are read. */
export interface ShownVersion {
  query: string;
  version: number;
  connectionName: string | null;
  mongoCollection?: string | null;
}

/** Where the list of a version's parameter is read: `connection`, the version's own (and a mongo query's collection). */
export const listRefOf = (at: ShownVersion, connection: string, param: string, rule: ParameterRule): ListRef => ({
  query: at.query,
  version: at.version,
  connection,
  param,
  rule,
  ...(at.mongoCollection ? { collection: at.mongoCollection } : {}),
});

/** The list of one parameter of a shown version; null when it takes none or its list cannot be read now. */
export async function shownList(deps: AppDeps, at: ShownVersion, param: string, rule: ParameterRule, refresh: 'always' | 'never' = 'never'): Promise<ValueList | null> {
  if (!listsValues(rule) || at.connectionName === null) return null;
  try {
    return shownAsJson(await valueList(deps, listRefOf(at, at.connectionName, param, rule), refresh));
  } catch (err) {
    deps.logger.warn({ query: at.query, version: at.version, parameter: param, err: { message: (err as Error).message } }, 'parameter values could not be read');
    return null;
  }
}

/**
 * Rules as documents and tools show them to callers (`/openapi.json`,
 * `/catalog`, MCP tools, the Postman export): a parameter that lists its
 * values gets them as its `enum`, as of now (with its own `enum` too, the
 * values both allow), and never shows its statement (callers see no SQL).
 * A list that cannot be read now, or holds nothing, is left out.
 */
export async function withListedValues(deps: AppDeps, at: ShownVersion, rules: Rules): Promise<Rules> {
  if (!Object.values(rules).some(listsValues)) return rules;
  const shown: Rules = { ...rules };
  for (const [param, rule] of Object.entries(rules)) {
    if (!listsValues(rule)) continue;
    const { values_query: _query, values_field: _field, values_ttl: _ttl, ...own } = rule;
    const list = await shownList(deps, at, param, rule);
    const items = list && rule.enum ? list.items.filter((item) => rule.enum!.some((allowed) => sameValue(allowed, item))) : list?.items;
    shown[param] = items && items.length > 0 ? { ...own, enum: items } : own;
  }
  return shown;
}
