import type { AccessCaller } from '../../access/reachability.ts';
import type { DocumentQuery } from '../../drivers/types.ts';
import { SluiceError, badRequest } from '../../errors.ts';
import { bindMarkers, bindableProblem, documentMarkers } from './bind.ts';
import { type CheckedParts, type DocumentParts, checkDocumentParts } from './query.ts';

export interface AdhocDocumentRequest extends DocumentParts {
  skip: number;
  limit: number;
  params: Record<string, unknown>;
}

export const ADHOC_NAMES = { collection: 'collection', filter: 'filter', projection: 'projection', sort: 'sort' } as const;

/**
 * An ad-hoc find's own checks (`POST /execute_mongo`; the run checked the
 * caller may use the connection): the query's shape passes (refused
 * operators, objects); every `":name"` in the filter has a bindable value in
 * `params` (400 with `errors` by name otherwise); a key's `allowed_tables`,
 * when it has them, name the collection.
 */
export function adhocFind(caller: Pick<AccessCaller, 'key'>, request: AdhocDocumentRequest): DocumentQuery {
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
