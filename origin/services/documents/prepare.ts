import { type AccessCaller, canUseConnection, connectionGranted } from '../../access/reachability.ts';
import type { DocumentQuery } from '../../drivers/types.ts';
import { SluiceError, badRequest } from '../../errors.ts';
import type { AppDeps } from '../../deps.ts';
import { connectionForRun } from '../connections/lookup.ts';
import { connectionNotGranted } from '../run/statement.ts';
import { bindMarkers, bindableProblem, documentMarkers } from './bind.ts';
import { type CheckedParts, type DocumentParts, checkDocumentParts } from './query.ts';

/**
 * Everything before the engine for `POST /execute_mongo`: the caller may use
 * the connection as for ad-hoc SQL (a key needs a `connections` grant of it,
 * refused before the connection is looked up; `queries` and `collections`
 * grants never allow ad-hoc runs) and it is a mongodb connection; the query's
 * shape passes (refused operators, objects); every `":name"` in the filter
 * has a bindable value in `params` (400 with `errors` by name otherwise); a
 * key's `allowed_tables`, when it has them, name the collection.
 */

export interface AdhocDocumentRequest extends DocumentParts {
  connection: string;
  skip: number;
  limit: number;
  params: Record<string, unknown>;
}

export const ADHOC_NAMES = { collection: 'collection', filter: 'filter', projection: 'projection', sort: 'sort' } as const;

export async function prepareAdhocDocuments(deps: AppDeps, caller: AccessCaller, request: AdhocDocumentRequest): Promise<DocumentQuery> {
  if (caller.key && !connectionGranted(caller.key.grants, request.connection)) throw connectionNotGranted(request.connection);
  const { name, row } = await connectionForRun(deps, request.connection);
  if (!canUseConnection(caller, { name, workspace: row.workspace })) {
    if (caller.key) throw connectionNotGranted(name);
    throw new SluiceError('forbidden', `Running queries on connection "${name}" needs the data.run capability`);
  }
  if (row.db !== 'mongodb') {
    throw badRequest(`Connection "${name}" is a ${row.db} connection: POST /execute_mongo runs document queries on mongodb connections (SQL goes to POST /execute_sql)`);
  }
  const checked = checkedParts(request);
  assertCollectionAllowed(caller, checked.collection);
  const values: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const marker of documentMarkers(checked.filter)) {
    if (!Object.hasOwn(request.params, marker)) {
      errors[marker] = `is required: the filter uses ":${marker}"`;
      continue;
    }
    const problem = bindableProblem(request.params[marker]);
    if (problem) errors[marker] = problem;
    else values[marker] = request.params[marker];
  }
  if (Object.keys(errors).length > 0) throw badRequest('Invalid parameters', { errors });
  return { ...boundQuery(checked, values), skip: request.skip, limit: request.limit };
}

function checkedParts(parts: DocumentParts): CheckedParts {
  const { problems, checked } = checkDocumentParts(parts, ADHOC_NAMES);
  if (!checked) {
    const summary = Object.entries(problems).map(([field, problem]) => `${field} ${problem}`).join('; ');
    throw badRequest(`Invalid document query: ${summary}`, { errors: problems });
  }
  return checked;
}

/** The checked parts with the filter's markers bound (the values already checked bindable). */
export function boundQuery(checked: CheckedParts, values: Record<string, unknown>): Omit<DocumentQuery, 'skip' | 'limit'> {
  return { ...checked, filter: bindMarkers(checked.filter, values) as Record<string, unknown> };
}

/** A key with `allowed_tables` reads only the collections they name (exactly, or `*`). */
export function assertCollectionAllowed(caller: Pick<AccessCaller, 'key'>, collection: string): void {
  const allowed = caller.key?.grants.allowed_tables ?? null;
  if (allowed === null || allowed.includes(collection) || allowed.includes('*')) return;
  throw new SluiceError('forbidden', `Collection "${collection}" is not among this API key's allowed_tables`);
}
