import { canReach } from '../../access/reachability.ts';
import type { DocumentQuery } from '../../drivers/types.ts';
import { SluiceError, badRequest } from '../../errors.ts';
import type { AppDeps } from '../../deps.ts';
import { requestValues } from '../../../shared/parameters/index.ts';
import { connectionForRun, workspaceOfConnection } from '../connections/lookup.ts';
import { bindableProblem, documentMarkers } from '../documents/bind.ts';
import { assertCollectionAllowed, boundQuery } from '../documents/prepare.ts';
import { checkDocumentParts } from '../documents/query.ts';
import type { RowOptions } from '../run/options.ts';
import { connectionNotGranted } from '../run/statement.ts';
import { MONGO_NAMES } from './definition.ts';
import type { Runnable } from './resolve.ts';
import type { SavedRunRequest } from './run.ts';

/** A saved document query ready for the engine (run-documents.ts), without the client's signal. */
export interface PreparedDocumentRun {
  kind: 'documents';
  input: { connection: string; query: DocumentQuery; options: RowOptions; params: Record<string, unknown> };
  query: string;
  version: number;
  cacheTtl: number | null;
  /** A find only ever reads: cached like a read statement. */
  isRead: true;
  workspace: string;
}

/**
 * Everything before the engine for `/q/<name>` of a `query_type: mongo`
 * version: the connection (one the caller may run it on, a mongodb one), the
 * parameter values checked against the rules (every problem at once, 400
 * before anything reaches the database), each a single value (an object or
 * operator is refused), bound into the filter as values; the refused
 * operators checked again (a stored definition never bypasses them), and a
 * key's `allowed_tables` against the collection.
 */
export async function prepareSavedDocuments(deps: AppDeps, request: SavedRunRequest, runnable: Runnable): Promise<PreparedDocumentRun> {
  const { query, version, rules, target } = runnable;
  const connection = request.connection ?? version.connectionName;
  if (!connection) throw badRequest(`Query "${query.name}" has no default connection: give connection_name`);
  const connectionWorkspace = connection === target.connectionName ? target.connectionWorkspace : await workspaceOfConnection(deps, connection);
  const runTarget = { ...target, connectionName: connection, connectionWorkspace };
  if (!canReach(request.caller, runTarget)) {
    throw request.caller.key
      ? connectionNotGranted(connection)
      : new SluiceError('forbidden', `Query "${query.name}" runs only on connections of its workspace "${query.workspace}"`);
  }
  const { row } = await connectionForRun(deps, connection);
  if (row.db !== 'mongodb') throw badRequest(`Connection "${connection}" is a ${row.db} connection: query "${query.name}" is a document query and runs on mongodb connections`);

  const stored = version.mongo;
  const { checked, problems } = checkDocumentParts(
    { collection: stored?.collection, filter: stored?.filter, projection: stored?.projection, sort: stored?.sort },
    MONGO_NAMES,
  );
  if (!checked) throw badRequest(`Query "${query.name}" cannot run: ${Object.entries(problems).map(([field, problem]) => `${field} ${problem}`).join('; ')}`);
  assertCollectionAllowed(request.caller, checked.collection);

  const claims = Object.values(rules).some((rule) => rule.from_claim !== undefined) ? await deps.signIn.claims(request.signInToken) : null;
  const markers = documentMarkers(checked.filter);
  const resolved = requestValues({ rules, markers, legacy: [], supplied: request.supplied, source: request.source, claims, problems: request.problems });
  if ('errors' in resolved) throw badRequest('Invalid parameters', { errors: resolved.errors });
  const errors: Record<string, string> = {};
  for (const marker of markers) {
    const problem = bindableProblem(resolved.values[marker]);
    if (problem) errors[marker] = problem;
  }
  if (Object.keys(errors).length > 0) throw badRequest('Invalid parameters', { errors });
  return {
    kind: 'documents',
    input: { connection, query: { ...boundQuery(checked, resolved.values), skip: 0, limit: 0 }, options: request.options, params: resolved.values },
    query: query.name,
    version: version.version,
    cacheTtl: version.cacheTtl,
    isRead: true,
    workspace: query.workspace,
  };
}
