import type { Dialect } from '../drivers/types.ts';

/**
 * The engine a statement runs on, whose rules the guard applies: a dialect,
 * or `h2`, the engine behind most jdbc connections. The text is tokenized by
 * the dialect the engine speaks (`lexDialect`); names, the functions a read
 * may call and the engine's own traps follow the engine. `jdbc` alone is a
 * JDBC driver of unknown engine: the PostgreSQL and H2 refusals both apply.
 */
export type Engine = Dialect | 'h2';

export const lexDialect = (engine: Engine): Dialect => (engine === 'h2' ? 'jdbc' : engine);

/** JDBC URL prefixes (and driver classes) of engines the guard has rules for. */
const JDBC_ENGINES: Array<[RegExp, string, Engine]> = [
  [/^jdbc:h2:/i, 'org.h2.Driver', 'h2'],
  [/^jdbc:postgresql:/i, 'org.postgresql.Driver', 'postgres'],
  [/^jdbc:(mysql|mariadb):/i, 'com.mysql.cj.jdbc.Driver', 'mysql'],
  [/^jdbc:mariadb:/i, 'org.mariadb.jdbc.Driver', 'mysql'],
  [/^jdbc:sqlite:/i, 'org.sqlite.JDBC', 'sqlite'],
  [/^jdbc:duckdb:/i, 'org.duckdb.DuckDBDriver', 'duckdb'],
  [/^jdbc:(clickhouse|ch):/i, 'com.clickhouse.jdbc.ClickHouseDriver', 'clickhouse'],
];

/**
 * The engine behind a JDBC connection, from its type, URL and driver class:
 * H2 for the h2 type; an engine the guard knows by its URL prefix or driver
 * class (its text is then tokenized as that engine reads it: PostgreSQL's
 * dollar quotes, MySQL's backslashes); otherwise unknown (`jdbc`).
 */
export function jdbcEngine(type: 'jdbc' | 'h2', url: string, driverClass: string): Engine {
  if (type === 'h2') return 'h2';
  const found = JDBC_ENGINES.find(([prefix, driver]) => prefix.test(url) || driver === driverClass);
  return found ? found[2] : 'jdbc';
}

/** The engine of a stored connection (its `db` type and `options`); the dialect's own for non-JDBC types. */
export function connectionEngine(db: string, options: Record<string, unknown>): Engine {
  if (db !== 'jdbc' && db !== 'h2') return db as Dialect;
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return jdbcEngine(db, text(options.jdbc_url), text(options.driver_class));
}
