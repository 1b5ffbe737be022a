/** What the workbench reads from a statement's text, without a parser. */

const SKIPPED = /(--[^\n]*|\/\*[\s\S]*?\*\/)|('(?:[^']|'')*'?)|("(?:[^"]|"")*"?|`[^`]*`?)|(?<!:):([A-Za-z_]\w*)/g;

/** The `:name` markers, each once, in order: not those in strings, quoted names, comments, nor `::` casts (as the server reads them). */
export function markers(sql: string): string[] {
  const found = new Set<string>();
  for (const m of sql.matchAll(SKIPPED)) if (m[4]) found.add(m[4]);
  return [...found];
}

/** Engines that quote names with backticks; the others take the standard double quotes. */
const BACKTICKS = new Set(['mysql', 'mariadb', 'clickhouse']);

/** A listed table name quoted for the connection's engine: `schema.table` as two quoted parts, as the schema listing names it. */
export function quoteName(db: string, name: string): string {
  const q = BACKTICKS.has(db) ? '`' : '"';
  return name.split('.').map((part) => `${q}${part.replaceAll(q, q + q)}${q}`).join('.');
}

/** The line a database's message points at (`LINE 3:` from PostgreSQL and DuckDB, `at line 3` from MySQL), if it names one. */
export function errorLine(detail: string): number | null {
  const m = /\bLINE (\d+):|\bat line (\d+)/i.exec(detail);
  return m ? Number(m[1] ?? m[2]) : null;
}
