/**
 * Parquet written by DuckDB, typed as our JS writer types it
 * (formats/parquet.ts, parquet-columns.ts over the values types.ts makes):
 * SQL that casts each column of a statement to the DuckDB type whose
 * parquet column is the JS writer's, under the JS writer's column names.
 *
 * The JS writer types a column from its kind, checked against the first row
 * group's values; a value that does not fit a typed column turns the column
 * into text (first group) or is written as NULL (later groups). DuckDB cannot
 * see row groups, so a value that would not fit makes the statement fail
 * with `DECLINED` instead: the caller then throws the file away and writes
 * the result in JS, which gives the JS writer's file whatever the data. Only
 * odd values do that: a non-finite date or timestamp, a date past year
 * 999999, an unsigned or 128-bit integer outside 64 bits.
 *
 * Columns, by DuckDB type (the parquet type both writers give):
 * - BOOLEAN (BOOLEAN); every integer up to BIGINT, and UBIGINT, HUGEINT,
 *   UHUGEINT inside 64 bits, as BIGINT (INT64); FLOAT and DOUBLE as DOUBLE
 *   (JS sees a float widened); DECIMAL(p,s) as is (DECIMAL(p,s): the JS
 *   writer takes p and s from the declared type).
 * - DATE (DATE); TIMESTAMP, TIMESTAMP_S, TIMESTAMP_MS as TIMESTAMP
 *   (TIMESTAMP micros, local); TIMESTAMPTZ (TIMESTAMP micros, UTC); TIME
 *   (TIME micros, local).
 * - VARCHAR as is, ENUM and UUID as their text, BLOB as base64 text, a
 *   column of NULLs as text (the JS writer's `valueText` and its fallback).
 * Declined (the JS path): TIME_NS and TIMETZ, TIMESTAMP_NS, INTERVAL, BIT,
 * BIGNUM, JSON, nested and any other type.
 */
import { DuckDBTypeId, type DuckDBType } from '@duckdb/node-api';
import { sqlIdentifier } from './instances.ts';
import { sqlString } from './render.ts';

/** The message of the error a value outside the JS writer's typing raises. */
export const DECLINED = 'sluice: a value the parquet push-down cannot type as the JS writer does';

const decline = `error(${sqlString(DECLINED)})`;

/** `v` unless `fits` is false, which fails the statement (`DECLINED`). NULL stays NULL. */
const guarded = (v: string, fits: string, cast: string) => `CASE WHEN ${v} IS NULL THEN NULL WHEN ${fits} THEN ${cast} ELSE ${decline} END`;

const asBigint = (v: string) => `CAST(${v} AS BIGINT)`;
const inInt64 = (v: string) => guarded(v, `TRY_CAST(${v} AS BIGINT) IS NOT NULL`, asBigint(v));
/** temporal.ts writes years in at most six digits; the JS writer parses those back. */
const finiteDate = (v: string) => guarded(v, `isfinite(${v}) AND year(${v}) BETWEEN -999999 AND 999999`, v);
const finiteTimestamp = (v: string) => guarded(v, `isfinite(${v})`, `CAST(${v} AS TIMESTAMP)`);
const finiteInstant = (v: string) => guarded(v, `isfinite(${v})`, v);
const asIs = (v: string) => v;
const asText = (v: string) => `CAST(${v} AS VARCHAR)`;

const COLUMNS: Partial<Record<DuckDBTypeId, (v: string) => string>> = {
  [DuckDBTypeId.BOOLEAN]: asIs,
  [DuckDBTypeId.TINYINT]: asBigint,
  [DuckDBTypeId.SMALLINT]: asBigint,
  [DuckDBTypeId.INTEGER]: asBigint,
  [DuckDBTypeId.BIGINT]: asIs,
  [DuckDBTypeId.UTINYINT]: asBigint,
  [DuckDBTypeId.USMALLINT]: asBigint,
  [DuckDBTypeId.UINTEGER]: asBigint,
  [DuckDBTypeId.UBIGINT]: inInt64,
  [DuckDBTypeId.HUGEINT]: inInt64,
  [DuckDBTypeId.UHUGEINT]: inInt64,
  [DuckDBTypeId.FLOAT]: (v) => `CAST(${v} AS DOUBLE)`,
  [DuckDBTypeId.DOUBLE]: asIs,
  [DuckDBTypeId.DECIMAL]: asIs,
  [DuckDBTypeId.DATE]: finiteDate,
  [DuckDBTypeId.TIMESTAMP]: finiteTimestamp,
  [DuckDBTypeId.TIMESTAMP_S]: finiteTimestamp,
  [DuckDBTypeId.TIMESTAMP_MS]: finiteTimestamp,
  [DuckDBTypeId.TIMESTAMP_TZ]: finiteInstant,
  [DuckDBTypeId.TIME]: asIs,
  [DuckDBTypeId.VARCHAR]: asIs,
  [DuckDBTypeId.ENUM]: asText,
  [DuckDBTypeId.UUID]: asText,
  [DuckDBTypeId.BLOB]: (v) => `base64(${v})`,
  [DuckDBTypeId.SQLNULL]: asText,
};

/**
 * The statement that selects `source`'s rows (a single SELECT-like
 * statement, any placeholders kept) typed for parquet, each column named
 * `names[i]` (already unique); null when a column's type is declined.
 */
export function parquetSelectSql(source: string, types: DuckDBType[], names: string[]): string | null {
  if (types.length === 0) return null;
  const casts = types.map((type) => (type.alias ? undefined : COLUMNS[type.typeId]));
  if (casts.some((cast) => cast === undefined)) return null;
  const columns = types.map((_, i) => `c${i}`);
  const select = casts.map((cast, i) => `${cast!(columns[i])} AS ${sqlIdentifier(names[i])}`);
  return `SELECT ${select.join(', ')} FROM (${source.replace(/;\s*$/, '')}\n) AS sluice_source(${columns.join(', ')})`;
}
