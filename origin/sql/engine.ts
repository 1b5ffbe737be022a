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

/**
 * The engine behind a JDBC connection, from its type, URL and driver class:
 * H2 for the h2 type, an H2 URL or H2's driver; PostgreSQL for a PostgreSQL
 * URL (its text is then tokenized as PostgreSQL reads it); otherwise unknown.
 */
export function jdbcEngine(type: 'jdbc' | 'h2', url: string, driverClass: string): Engine {
  if (type === 'h2' || /^jdbc:h2:/i.test(url) || driverClass === 'org.h2.Driver') return 'h2';
  if (/^jdbc:postgresql:/i.test(url) || driverClass === 'org.postgresql.Driver') return 'postgres';
  return 'jdbc';
}
