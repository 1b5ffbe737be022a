import { eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Dialect } from '../../drivers/types.ts';
import { SluiceError } from '../../errors.ts';
import type { AppDeps } from '../../deps.ts';
import { inspect } from '../../sql/index.ts';
import { analyzeTables } from '../../sql/tables.ts';
import { tokenize } from '../../sql/tokenizer.ts';
import { connections, queries } from '../../store/schema/index.ts';
import type { Caller } from '../../access/caller.ts';
import { listedValuesProblems } from '../parameter-values/on-save.ts';
import { checkDefinition } from './definition.ts';
import { assertValidName, collectionProblems, createFields } from './fields.ts';

/** POST /api/v1/queries/validate: the create body, `name` optional. */
export const validateFields = createFields.partial({ name: true });
export type ValidateFields = z.infer<typeof validateFields>;

export interface Validation {
  /** True when saving this body would pass every check. */
  valid: boolean;
  /** Every problem, keyed by field as a refused save lists them (`parameters.<name>` for one parameter). */
  errors: Record<string, string>;
  /** The dialect the SQL was read in: the default connection's type, else postgres. */
  dialect: Dialect;
  parameters: {
    declared: string[];
    /** Names the SQL uses, as `:name` markers or legacy `{name}` placeholders, in order of first use. */
    used: string[];
    /** Used but not declared: such values are required and passed through as supplied. */
    undeclared: string[];
  };
  /** Tables read or written (see `sql/tables.ts` for the labels); empty when the SQL could not be analysed. */
  tables: string[];
  /** Why the tables could not be listed; null when they were. Not a problem of the definition. */
  tables_error: string | null;
  /** `read`: one plain read statement; `keyword`: its leading keyword; `refusal`: why it is not a read. */
  statement: { read: boolean; keyword: string; refusal: string | null };
}

const LEGACY_PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const DEFAULT_DIALECT: Dialect = 'postgres';
const DIALECTS: Dialect[] = ['postgres', 'mysql', 'duckdb', 'sqlite', 'clickhouse', 'jdbc'];

/**
 * Checks a query definition the way a create would, without saving or
 * auditing anything: the save-time checks (`definition.ts`), the name and
 * collection rules and a name already taken are all listed in `errors`,
 * next to what the SQL uses and reads. Always answers; only a body that is
 * not the create shape (unknown field, wrong JSON type) is refused earlier.
 */
export async function validateQuery(deps: AppDeps, input: ValidateFields, workspace: string, actor: Pick<Caller, 'key'> | null): Promise<Validation> {
  const db = deps.store.db;
  const errors: Record<string, string> = {};
  if (input.name !== undefined) {
    const problem = await nameProblem(deps, input.name);
    if (problem) errors.name = problem;
  }
  try {
    const definition = await checkDefinition(db, input, { problems: collectionProblems(input.collection), workspace });
    Object.assign(errors, await listedValuesProblems(deps, definition, actor));
  } catch (err) {
    if (!(err instanceof SluiceError) || !isProblemMap(err.extras.errors)) throw err;
    Object.assign(errors, err.extras.errors);
  }

  const dialect = await dialectOf(deps, input.connection_name);
  const sql = typeof input.sql === 'string' ? input.sql : '';
  const declared = isPlainObject(input.parameters) ? Object.keys(input.parameters) : [];
  const used = usedNames(sql, dialect);
  const info = inspect(sql, dialect);
  const analysis = sql.trim() === '' ? null : analyzeTables(sql, dialect);
  return {
    valid: Object.keys(errors).length === 0,
    errors,
    dialect,
    parameters: { declared, used, undeclared: used.filter((name) => !declared.includes(name)) },
    tables: analysis?.tables ?? [],
    tables_error: analysis ? analysis.error : 'there is no SQL to analyse',
    statement: { read: info.isRead, keyword: info.keyword, refusal: info.refusal },
  };
}

/** The name rules of a create, and 409's cause: a query by that name exists. */
async function nameProblem(deps: AppDeps, name: string): Promise<string | null> {
  try {
    assertValidName(name);
  } catch (err) {
    if (err instanceof SluiceError) return err.message;
    throw err;
  }
  const [taken] = await deps.store.db.select({ id: queries.id }).from(queries).where(eq(queries.name, name));
  return taken ? `a query named ${JSON.stringify(name)} already exists` : null;
}

/** The default connection's type; postgres when none is named or it does not exist (that is reported in `errors`). */
async function dialectOf(deps: AppDeps, connectionName: unknown): Promise<Dialect> {
  if (typeof connectionName !== 'string' || connectionName === '') return DEFAULT_DIALECT;
  const [row] = await deps.store.db.select({ db: connections.db }).from(connections).where(eq(connections.name, connectionName));
  return row && (DIALECTS as string[]).includes(row.db) ? (row.db as Dialect) : DEFAULT_DIALECT;
}

/** `:name` markers (outside strings and comments) and legacy `{name}` placeholders (anywhere: they are pasted as text), by first use. */
function usedNames(sql: string, dialect: Dialect): string[] {
  const uses: Array<[number, string]> = tokenize(sql, dialect)
    .filter((t) => t.kind === 'marker')
    .map((t) => [t.start, t.text.slice(1)]);
  for (const match of sql.matchAll(LEGACY_PLACEHOLDER)) uses.push([match.index, match[1]]);
  return [...new Set(uses.sort((a, b) => a[0] - b[0]).map(([, name]) => name))];
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isProblemMap = (value: unknown): value is Record<string, string> =>
  isPlainObject(value) && Object.values(value).every((v) => typeof v === 'string');
