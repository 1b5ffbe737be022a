import { listsValues, parseDefinitions } from '../../../shared/parameters/index.ts';
import type { Caller } from '../../access/caller.ts';
import type { AppDeps } from '../../deps.ts';
import { badRequest } from '../../errors.ts';
import { problemOf, readValues } from './read.ts';

/** What a definition's listed values are read against. */
export interface ListedDefinition {
  parameters: Record<string, unknown>;
  connectionName: string | null;
  mongo: { collection: string } | null;
}

/**
 * Every parameter listing its values reads them once on save: a statement
 * that writes, returns two columns, lists more than SLUICE_VALUES_MAX
 * values or fails is refused with its reason (the database's message
 * included), keyed `parameters.<name>` as the other definition problems
 * are. A key saving the query has its `allowed_tables` applied. The values
 * are read from the version's own connection, so it needs one.
 */
export async function listedValuesProblems(deps: AppDeps, definition: ListedDefinition, actor: Pick<Caller, 'key'> | null): Promise<Record<string, string>> {
  const parsed = parseDefinitions(definition.parameters);
  if (!('rules' in parsed)) return {};
  const errors: Record<string, string> = {};
  for (const [name, rule] of Object.entries(parsed.rules)) {
    if (!listsValues(rule)) continue;
    if (definition.connectionName === null) {
      errors[`parameters.${name}`] = 'listed values are read on the query\'s own connection: give the query a connection_name';
      continue;
    }
    try {
      await readValues(deps, definition.connectionName, rule, { collection: definition.mongo?.collection, allowedTables: actor?.key?.grants.allowed_tables ?? null });
    } catch (err) {
      errors[`parameters.${name}`] = problemOf(err).message;
    }
  }
  return errors;
}

/** 400 with every listed-values problem, as a refused save lists its problems. */
export async function assertListedValues(deps: AppDeps, definition: ListedDefinition, actor: Pick<Caller, 'key'> | null): Promise<void> {
  const errors = await listedValuesProblems(deps, definition, actor);
  const fields = Object.keys(errors);
  if (fields.length > 0) throw badRequest(`Invalid query definition: ${fields.map((field) => `${field}: ${errors[field]}`).join('; ')}`, { errors });
}
