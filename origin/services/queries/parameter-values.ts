import { type Rules, listsValues, parseDefinitions } from '../../../shared/parameters/index.ts';
import type { AppDeps } from '../../deps.ts';
import { SluiceError } from '../../errors.ts';
import type { QueryVersionRow } from '../../store/schema/index.ts';
import { problemOf } from '../parameter-values/read.ts';
import { type ShownVersion, listRefOf, shownList } from '../parameter-values/shown.ts';
import { type ValueList, shownAsJson, valueList } from '../parameter-values/lists.ts';
import { findQuery, findVersion } from './lookup.ts';

/** A stored version as the shown lists name it. */
const shownVersionOf = (name: string, row: QueryVersionRow): ShownVersion => ({ query: name, version: row.version, connectionName: row.connectionName, mongoCollection: row.mongo?.collection ?? null });

const rulesOf = (row: Pick<QueryVersionRow, 'parameters'>): Rules => {
  const parsed = parseDefinitions(row.parameters);
  return 'rules' in parsed ? parsed.rules : {};
};

/**
 * GET /api/v1/queries/{name}/versions/{n}/parameters/{param}/values: the
 * parameter's allowed values as last read (`refresh`: read now), ascending.
 * 404 for a parameter that lists none; a statement that fails now answers
 * its problem (500 `query_failed`), as a run would.
 */
export async function parameterValues(deps: AppDeps, name: string, number: number, param: string, { workspace, refresh }: { workspace?: string; refresh: boolean }): Promise<ValueList> {
  const version = await deps.store.db.transaction(async (tx) => findVersion(tx, await findQuery(tx, name, { workspace }), number));
  const rules = rulesOf(version);
  const rule = Object.hasOwn(rules, param) ? rules[param] : undefined;
  if (!rule || !listsValues(rule)) {
    throw new SluiceError('not_found', `Version ${number} of query "${name}" has no parameter "${param}" that lists its values (values_query or values_field)`);
  }
  if (version.connectionName === null) throw new SluiceError('not_found', `Version ${number} of query "${name}" has no connection to read the values of "${param}" on`);
  try {
    return shownAsJson(await valueList(deps, listRefOf(shownVersionOf(name, version), version.connectionName, param, rule), refresh ? 'always' : 'never'));
  } catch (err) {
    throw new SluiceError('query_failed', problemOf(err).message);
  }
}

/** The lists of a version's listing parameters (`GET /api/v1/queries/{name}` shows the serving version's); one that cannot be read now is null. */
export async function versionValueLists(deps: AppDeps, name: string, version: QueryVersionRow): Promise<Record<string, ValueList | null>> {
  const lists: Record<string, ValueList | null> = {};
  const at = shownVersionOf(name, version);
  for (const [param, rule] of Object.entries(rulesOf(version))) if (listsValues(rule)) lists[param] = await shownList(deps, at, param, rule);
  return lists;
}
