/** Keyword sets, token helpers and the error of the table reader (`table-reader.ts`, `from-items.ts`). */
import { isPunct } from './statements.ts';
import type { Token } from './tokenizer.ts';

/** Thrown when the text cannot be followed; `analyzeTables` returns it as `error`. */
export class Unreadable extends Error {}

/** Statements whose FROM, JOIN, INTO... name tables (`SHOW ... FROM db`, `COPY t FROM 'f'`, `REVOKE ... FROM role` do not). */
export const QUERY_LEADS = new Set([
  ...['SELECT', 'WITH', 'VALUES', 'TABLE', 'INSERT', 'UPDATE', 'DELETE', 'MERGE', 'REPLACE', 'UPSERT'],
  ...['EXPLAIN', 'DESCRIBE', 'DESC', 'SUMMARIZE', 'CREATE'],
]);
/** Leads of a parenthesised query (subquery, CTE body, data-modifying CTE). */
export const NESTED_LEADS = new Set(['SELECT', 'WITH', 'VALUES', 'TABLE', 'INSERT', 'UPDATE', 'DELETE', 'MERGE']);
export const JOIN_WORDS = new Set(['NATURAL', 'INNER', 'LEFT', 'RIGHT', 'FULL', 'OUTER', 'CROSS', 'SEMI', 'ANTI', 'ASOF', 'POSITIONAL']);
/** What may follow a FROM list (or end an ON condition); anything else means the clause was not understood. */
export const AFTER_FROM = new Set([
  ...['WHERE', 'GROUP', 'HAVING', 'ORDER', 'LIMIT', 'OFFSET', 'FETCH', 'WINDOW', 'QUALIFY', 'UNION', 'INTERSECT'],
  ...['EXCEPT', 'SET', 'RETURNING', 'FOR', 'LOCK', 'INTO', 'ON', 'USING', 'SELECT'],
]);
/** Words that end a FROM item instead of naming its alias. */
export const NOT_ALIAS = new Set([
  ...AFTER_FROM, ...JOIN_WORDS, 'JOIN', 'STRAIGHT_JOIN', 'LATERAL', 'TABLESAMPLE', 'USE', 'FORCE', 'IGNORE',
  'INDEXED', 'NOT', 'PARTITION', 'WITH', 'FROM', 'VALUES', 'AS', 'PIVOT', 'UNPIVOT',
]);
/**
 * Functions that run SQL text or read a table named by a value: what they
 * touch is decided at run time. Any call by these names makes `tablesOrNull`
 * answer null.
 */
export const DYNAMIC = new Set([
  ...['query', 'query_table', 'sql', 'eval', 'dblink', 'dblink_exec', 'dblink_open', 'dblink_send_query'],
  ...['query_to_xml', 'query_to_xmlschema', 'query_to_xml_and_xmlschema', 'cursor_to_xml', 'cursor_to_xmlschema'],
  ...['table_to_xml', 'table_to_xmlschema', 'table_to_xml_and_xmlschema', 'schema_to_xml', 'schema_to_xmlschema'],
  ...['schema_to_xml_and_xmlschema', 'database_to_xml', 'database_to_xmlschema', 'database_to_xml_and_xmlschema'],
  ...['ts_stat', 'ts_rewrite'],
]);
export const SAMPLE_WORDS = new Set(['BERNOULLI', 'SYSTEM', 'RESERVOIR', 'PERCENT', 'ROWS', 'REPEATABLE']);

/** `"a""b"` -> `a"b`, `` `x` `` -> `x`, `[x]` -> `x`, `'f.csv'` -> `f.csv`. */
export function unquote(text: string): string {
  const open = text[0];
  const close = open === '[' ? ']' : open;
  const inner = text.length > 1 && text.endsWith(close) ? text.slice(1, -1) : text.slice(1);
  return open === '[' ? inner : inner.replaceAll(close + close, close);
}

/** A part that could be misread once joined with `.` (or as a `function:` label) is shown double-quoted. */
export const labelPart = (part: string) => (/^$|[.:"]/.test(part) ? `"${part.replaceAll('"', '""')}"` : part);

/** Index of the `(` matching the `)` at `close`. */
export function openingParen(tokens: Token[], close: number): number {
  let depth = 0;
  for (let i = close; i >= 0; i--) {
    if (isPunct(tokens[i], ')')) depth++;
    else if (isPunct(tokens[i], '(') && --depth === 0) return i;
  }
  return -1;
}
