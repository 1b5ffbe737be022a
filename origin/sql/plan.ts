import type { Dialect } from '../drivers/types.ts';
import { badRequest } from '../errors.ts';
import { classify } from './guard.ts';
import { markerEdits, markerNames, render, requireValues, type Edit } from './markers.ts';
import { splitStatements } from './statements.ts';
import { codeTokens, tokenize, type Token } from './tokenizer.ts';
import { findWindow, type WindowNumber, type WindowScan } from './window.ts';
import { INT_MAX } from '../../shared/parameters/convert.ts';
import { memoByText } from '../text-memo.ts';

/** Validated positive integers, 1-based page. */
export interface Paging {
  page: number;
  pageSize: number;
  /** Count up to this many rows after the page (an MCP tool's note): the engine pages the cursor, the statement is not rewritten. */
  countBeyond?: number;
  /**
   * End the page once its rows would pass about this many bytes as JSON (an
   * MCP tool's answer): the rows after it are neither read nor counted.
   */
  maxBytes?: number;
}

export interface PlannedStatement {
  /** SQL for the driver: markers replaced by placeholders, the window possibly rewritten. */
  text: string;
  /** Positional bind values. */
  values: unknown[];
  /** Rows the engine discards before taking (0 when the window was rewritten into SQL). */
  skip: number;
  /** Rows that belong to the page; null for all rows (no paging). */
  take: number | null;
  /** Read one row past `take` to learn whether more exist; false when the window proves none do. */
  probe: boolean;
  /** The most rows the statement can return, when its window was rewritten to the page; null otherwise. */
  rowsAtMost: number | null;
  /** PostgreSQL, a page folded into the statement: the text with its values written in as literals, when each can be (markers.ts). */
  inlined?: string;
}

/** The statement's own trailing LIMIT (or FETCH FIRST), its value bound; null without one: a bound on its rows (a dry run's estimate). */
export function ownLimit(sql: string, dialect: Dialect, params: Record<string, unknown>): number | null {
  const { scan } = shapeOf(sql, dialect);
  const limit = scan.kind === 'clause' ? scan.clause.limit : undefined;
  return limit ? windowValue(limit, params) : null;
}

/** Statements whose trailing LIMIT/OFFSET applies to the rows they return. */
const WINDOWED = new Set(['SELECT', 'WITH', 'VALUES']);

/**
 * Binds markers and, when paging, folds the page into the statement's own
 * window so the database returns only the page's rows (plus one to probe for
 * more). Call only for a text `inspect` found to hold one statement.
 */
export function plan(
  sql: string,
  dialect: Dialect,
  params: Record<string, unknown>,
  paging: Paging | null,
): PlannedStatement {
  const { names, statement, scan, markers, plainRead } = shapeOf(sql, dialect);
  requireValues(names, params);
  const own = scan.kind === 'clause' ? scan.clause : null;
  const limit = own?.limit ? windowValue(own.limit, params) : null;
  const offset = own?.offset ? windowValue(own.offset, params) : 0;

  if (!paging) {
    const { text, values } = render(sql, markers, dialect, params);
    return { text, values, skip: 0, take: null, probe: false, rowsAtMost: null };
  }
  const start = (paging.page - 1) * paging.pageSize;
  const rewritable =
    paging.countBeyond === undefined &&
    scan.kind !== 'unknown' &&
    statement.length > 0 &&
    [limit ?? 0, offset + start + paging.pageSize + 1].every(Number.isSafeInteger) &&
    plainRead;
  if (!rewritable) {
    // The database applies the statement's own window; the engine pages the cursor.
    const { text, values } = render(sql, markers, dialect, params);
    return { text, values, skip: start, take: paging.pageSize, probe: true, rowsAtMost: null };
  }

  const page = pageWindow(limit, offset, start, paging.pageSize);
  let edits: Edit[];
  if (own) {
    const from = statement[own.from].start;
    const to = statement[own.to - 1].end;
    const outside = markers.filter((m) => m.end <= from || m.start >= to);
    edits = [...outside, { start: from, end: to, text: page.clause }];
  } else {
    const end = statement[statement.length - 1].end;
    edits = [...markers, { start: end, end, text: ` ${page.clause}` }];
  }
  // Only a statement read whole may be sent with its values written in.
  const { text, values, inlined } = render(sql, edits, dialect, params, true);
  return { text, values, ...(inlined === null ? {} : { inlined }), skip: 0, take: page.take, probe: page.probe, rowsAtMost: page.rows };
}

/** What planning reads from the text alone: the same for every run of a statement. */
interface Shape {
  names: string[];
  statement: Token[];
  scan: WindowScan;
  markers: Edit[];
  plainRead: boolean;
}

/**
 * One memo per dialect: a saved query or a client sends the same text run
 * after run, and its tokens, window and markers were read once (the values
 * are bound on every run). Shared results: read-only.
 */
const shapes = new Map<Dialect, (sql: string) => Shape>();

function shapeOf(sql: string, dialect: Dialect): Shape {
  let memo = shapes.get(dialect);
  if (!memo) {
    memo = memoByText((text) => readShape(text, dialect), { maxText: 16 * 1024 });
    shapes.set(dialect, memo);
  }
  return memo(sql);
}

function readShape(sql: string, dialect: Dialect): Shape {
  const tokens = tokenize(sql, dialect);
  const statement = splitStatements(codeTokens(tokens))[0] ?? [];
  return { names: markerNames(tokens), statement, scan: findWindow(statement, dialect), markers: markerEdits(tokens), plainRead: statement.length > 0 && isPlainRead(statement, dialect) };
}

/**
 * Page `start / size` inside a window of `limit` rows (null: unbounded) from
 * `offset`, as the clause asking for `rows` rows. The probe row is asked for
 * only when the window may hold more rows than the page, so `LIMIT 3` never
 * reads a fourth row.
 */
function pageWindow(limit: number | null, offset: number, start: number, size: number) {
  if (limit !== null && start >= limit) return { clause: 'LIMIT 0', take: 0, probe: false, rows: 0 };
  const take = limit === null ? size : Math.min(size, limit - start);
  const probe = limit === null || limit - start > size;
  // No `OFFSET 0`: DuckDB plans any OFFSET as a late materialization (a scan joined back to
  // the table), which turns a first page, or a one-row lookup, into a scan of the whole table.
  const skip = offset + start;
  const rows = take + (probe ? 1 : 0);
  return { clause: `LIMIT ${rows}${skip > 0 ? ` OFFSET ${skip}` : ''}`, take, probe, rows };
}

function isPlainRead(statement: Token[], dialect: Dialect): boolean {
  const verdict = classify(statement, dialect);
  return verdict.isRead && WINDOWED.has(verdict.keyword);
}

/**
 * A window bound's value: a whole number from 0 to the largest 64-bit
 * integer (as the databases bind it), given as number, bigint or digits
 * (query strings).
 */
function windowValue(bound: WindowNumber, params: Record<string, unknown>): number {
  if ('literal' in bound) return Number(bound.literal);
  const whole = wholeNumber(params[bound.marker]);
  if (whole !== null && whole >= 0n && whole <= INT_MAX) return Number(whole);
  throw badRequest(
    `Parameter :${bound.marker} sets the row window (LIMIT/OFFSET/FETCH) and must be a whole number from 0 to ${INT_MAX}`,
  );
}

function wholeNumber(value: unknown): bigint | null {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : null;
  return typeof value === 'string' && /^\d+$/.test(value) ? BigInt(value) : null;
}
