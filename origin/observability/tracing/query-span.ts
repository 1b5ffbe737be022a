import type { ConnectionSettings, RunDialect } from '../../drivers/types.ts';
import { inspect } from '../../sql/index.ts';
import { tablesOrNull } from '../../sql/tables.ts';
import { memoByText } from '../../text-memo.ts';
import { NO_SPAN, type SpanAttributes, type TraceSpan } from './span.ts';

/** `db.system.name` (OpenTelemetry's database conventions) of each engine. */
const SYSTEMS: Record<RunDialect, string> = {
  postgres: 'postgresql',
  mysql: 'mysql',
  duckdb: 'duckdb',
  sqlite: 'sqlite',
  clickhouse: 'clickhouse',
  jdbc: 'other_sql',
  mongodb: 'mongodb',
};

/** Engines whose `database` is a plain name; the others' is a path or a URL, which may carry a token. */
const NAMED_DATABASES: ReadonlySet<RunDialect> = new Set(['postgres', 'mysql', 'clickhouse', 'mongodb']);

/** Where a statement runs, as a query span names it. */
export interface QueryPlace {
  settings?: Pick<ConnectionSettings, 'host' | 'port' | 'database'>;
  /** The saved query and version run, if one. */
  saved?: { name: string; version: number | null };
}

/**
 * The `CLIENT` span of one statement (or find), under the request's span:
 * named by its summary (`SELECT films`), carrying the system, namespace,
 * operation and server, and the statement's text only when
 * SLUICE_OTEL_SQL_TEXT asks for it. Parameter values never: they are not in
 * the text a span is given (placeholders), and no attribute carries them.
 */
export function startQuerySpan(parent: TraceSpan, run: { dialect: RunDialect; text: string; withText: boolean } & QueryPlace): TraceSpan {
  if (parent === NO_SPAN) return NO_SPAN;
  const { operation, summary } = run.dialect === 'mongodb' ? { operation: 'find', summary: 'find' } : described(`${run.dialect}\n${run.text}`);
  const attributes: SpanAttributes = {
    'db.system.name': SYSTEMS[run.dialect],
    'db.operation.name': operation,
    'db.query.summary': summary,
    'db.namespace': NAMED_DATABASES.has(run.dialect) ? (run.settings?.database ?? undefined) : undefined,
    'server.address': run.settings?.host ?? undefined,
    'server.port': run.settings?.port ?? undefined,
    'sluice.query.name': run.saved?.name,
    'sluice.query.version': run.saved?.version ?? undefined,
    'db.query.text': run.withText && run.dialect !== 'mongodb' ? run.text : undefined,
  };
  return parent.child(summary, attributes, 'client');
}

/** The statement's first keyword and the tables it reads, from its text: worked out once per text. */
const described = memoByText((key: string) => {
  const at = key.indexOf('\n');
  const engine = key.slice(0, at) as Exclude<RunDialect, 'mongodb'>;
  const text = key.slice(at + 1);
  const operation = inspect(text, engine).keyword || 'statement';
  const tables = tablesOrNull(text, engine)?.filter((table) => !table.includes(':')) ?? [];
  return { operation, summary: [operation, ...tables.slice(0, 3)].join(' ') };
});
