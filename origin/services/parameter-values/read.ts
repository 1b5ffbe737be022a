import type { AppDeps } from '../../deps.ts';
import { SluiceError } from '../../errors.ts';
import { formatInstantMicros } from '../../time.ts';
import { Decimal, Instant, JsonValue, LocalTimestamp, SqlDate, SqlTime, type Value } from '../../values.ts';
import { fromJson, fromText } from '../../../shared/parameters/convert.ts';
import { type ParameterRule, valueKind } from '../../../shared/parameters/types.ts';
import { connectionForRun } from '../connections/lookup.ts';
import { runsSql } from '../../drivers/types.ts';
import { inspect } from '../../sql/index.ts';
import { checkStatement, sqlDriver } from '../run/statement.ts';

/** Why a values statement gave no list: said on save, at refresh and by the values endpoint. */
export class ValuesProblem extends Error {}

/** Rows read per batch: a values list is small (SLUICE_VALUES_MAX). */
const BATCH = 1000;

/**
 * The distinct values a rule lists on `connection`, sorted ascending, each
 * converted to the parameter's type: a `values_query`'s one column, or a
 * `values_field`'s values in the query's collection. A statement goes
 * through the read-only guard (and a key's `allowed_tables`, on save) like
 * any SQL and runs in the read-only transaction or session every read gets;
 * both run under the server's time limit and take no parameters. More
 * distinct values than SLUICE_VALUES_MAX is a problem.
 */
export async function readValues(deps: AppDeps, connection: string, rule: ParameterRule, source: { collection?: string; allowedTables?: string[] | null } = {}): Promise<unknown[]> {
  const { name, settings } = await connectionForRun(deps, connection);
  const driver = deps.drivers.get(name, settings);
  const timeoutMs = deps.env.SLUICE_QUERY_TIMEOUT * 1000;
  const list = new DistinctValues(rule, deps.env.SLUICE_VALUES_MAX);
  if (rule.values_field !== undefined) {
    if (runsSql(driver) || source.collection === undefined) throw new ValuesProblem('values_field lists a field of a mongo query\'s collection');
    for (const value of await driver.distinct({ collection: source.collection, field: rule.values_field, timeoutMs })) list.add(value);
    return list.sorted();
  }
  const sql = rule.values_query!;
  const sqlRunner = sqlDriver(driver, name);
  const engine = sqlRunner.engine ?? sqlRunner.dialect;
  const read = inspect(sql, engine);
  if (read.statementCount === 1 && !read.isRead) throw new ValuesProblem(`values_query must be a read: ${read.refusal}`);
  const info = checkStatement(deps.env, sql, engine, false, { mayWrite: false, allowedWriteOps: null, allowedTables: source.allowedTables ?? null });
  if (info.markers.length > 0) throw new ValuesProblem(`values_query takes no parameters (it uses :${info.markers[0]})`);
  const cursor = await sqlRunner.run({ text: sql, values: [], readOnly: true, timeoutMs, signal: new AbortController().signal, batchSize: BATCH });
  try {
    if (cursor.columns.length !== 1) throw new ValuesProblem(`values_query must return one column; it returns ${cursor.columns.length}`);
    for await (const batch of cursor.batches) for (const [cell] of batch) list.add(cell ?? null);
  } finally {
    await cursor.close();
  }
  return list.sorted();
}

/** Values as they are read: typed, nulls left out, each once, at most `max`. */
class DistinctValues {
  private readonly seen = new Map<string, unknown>();

  constructor(
    private readonly rule: ParameterRule,
    private readonly max: number,
  ) {}

  add(cell: Value): void {
    const value = typed(this.rule, cell);
    if (value === null) return;
    this.seen.set(`${typeof value}:${String(value)}`, value);
    if (this.seen.size > this.max) throw new ValuesProblem(`the list holds more than ${this.max} distinct values (SLUICE_VALUES_MAX); narrow it or use another rule`);
  }

  sorted(): unknown[] {
    return [...this.seen.values()].sort(ascending);
  }
}

/** A database value as the parameter's type (null is never listed). */
function typed(rule: ParameterRule, value: Value): unknown {
  const scalar = scalarOf(value);
  if (scalar === null) return null;
  const kind = valueKind(rule);
  // Text parameters list any column's values as their text.
  if (kind === 'str' || kind === 'text') return String(scalar);
  const converted = typeof scalar === 'string' && kind !== 'any' ? fromText(kind, scalar) : fromJson(kind, scalar);
  if ('problem' in converted) throw new ValuesProblem(`the list holds ${JSON.stringify(String(scalar))}, a value the parameter's type refuses: it ${converted.problem}`);
  return converted.value;
}

/** A driver value as one JSON scalar: exact types as their text, structured values as JSON text. */
function scalarOf(value: Value): string | number | boolean | bigint | null {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return value;
  if (value instanceof Decimal || value instanceof SqlDate || value instanceof SqlTime || value instanceof LocalTimestamp) return value.text;
  if (value instanceof Instant) return formatInstantMicros(value.epochMicros);
  if (value instanceof JsonValue) return JSON.stringify(value.value);
  return Buffer.from(value).toString('base64');
}

const RANK = { boolean: 0, number: 1, bigint: 1, string: 2 } as Record<string, number>;

/** Ascending: booleans, then numbers by value, then text by code point. */
export function ascending(a: unknown, b: unknown): number {
  const rank = (RANK[typeof a] ?? 3) - (RANK[typeof b] ?? 3);
  if (rank !== 0) return rank;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  const x = a as number | bigint | boolean;
  const y = b as number | bigint | boolean;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A failed statement's refusal or database message, as a values problem. */
export function problemOf(err: unknown): ValuesProblem {
  if (err instanceof ValuesProblem) return err;
  if (!(err instanceof SluiceError)) throw err;
  // The database's own message rides in `detail` (already redacted of credentials by the driver).
  const detail = typeof err.extras.detail === 'string' && err.extras.detail !== '' ? `: ${err.extras.detail}` : '';
  return new ValuesProblem(`${err.status < 500 ? 'the list is refused' : 'the list could not be read'}: ${err.message}${detail}`);
}
