import { lexDialect, type Engine } from './engine.ts';
import { classify } from './guard.ts';
import { markerNames } from './markers.ts';
import { ambiguousQuoting, executableComment } from './mysql.ts';
import { splitStatements } from './statements.ts';
import { codeTokens, tokenize } from './tokenizer.ts';
import { memoByText } from '../text-memo.ts';

export interface StatementInfo {
  /** Non-empty statements: `select 1;` is one, `select 1; select 2` two. */
  statementCount: number;
  /** Leading keyword of the first statement, upper-case; '' when none. */
  keyword: string;
  /** True only for one plain read statement. */
  isRead: boolean;
  /** Why the text is not a read, for the client; null when it is. */
  refusal: string | null;
  /**
   * Write keywords the text performs, for per-key allowed write operations
   * (`SELECT INTO` is reported as CREATE in postgres/duckdb). A refusal with
   * no write op (executable comment, sql_mode-dependent quoting, text not
   * understood) is nothing a key can be allowed: such text must not run.
   */
  writeOps: readonly string[];
  /** Distinct `:name` markers in order of first appearance. */
  markers: readonly string[];
}

/**
 * One memo per engine (a dialect, or H2: engine.ts): a statement is checked before every run
 * (services/run/prepare*.ts), a saved query's markers are read on every run,
 * and the same texts come back. Texts up to 16 KiB are kept (saved SQL is
 * rarely longer); a longer one is inspected each time.
 */
const memos = new Map<Engine, (sql: string) => Readonly<StatementInfo>>();

export function inspect(sql: string, engine: Engine): Readonly<StatementInfo> {
  let memo = memos.get(engine);
  if (!memo) {
    memo = memoByText((text) => Object.freeze(inspectText(text, engine)), { maxText: 16 * 1024 });
    memos.set(engine, memo);
  }
  return memo(sql);
}

function inspectText(sql: string, engine: Engine): StatementInfo {
  const dialect = lexDialect(engine);
  const tokens = tokenize(sql, dialect);
  const statements = splitStatements(codeTokens(tokens));
  const verdicts = statements.map((statement) => classify(statement, engine));
  const refusal =
    (dialect === 'mysql' ? executableComment(tokens) : null) ??
    (statements.length === 0 ? 'the text holds no SQL statement' : null) ??
    (statements.length > 1 ? `only one statement is allowed, the text holds ${statements.length}` : null) ??
    verdicts[0].refusal ??
    (dialect === 'mysql' ? ambiguousQuoting(sql) : null);
  return {
    statementCount: statements.length,
    keyword: verdicts[0]?.keyword ?? '',
    isRead: refusal === null,
    refusal,
    writeOps: Object.freeze([...new Set(verdicts.flatMap((v) => v.writeOps))]),
    markers: Object.freeze(markerNames(tokens)),
  };
}
