import { type SQL, and, asc, count, desc, eq, ilike, lt, max, min, or, sql } from 'drizzle-orm';
import { FilterArgs, cursorCodec } from '../filter-args.ts';
import type { StoreDb } from '../store/open.ts';
import { auditLog } from '../store/schema/index.ts';
import { readAnchor } from './chain.ts';
import { type AuditEntryView, auditEntryView } from './view.ts';

export interface AuditFilters {
  action?: string;
  actor?: string;
  target?: string;
  /** Case-insensitive text in the target or anywhere in the changes. */
  q?: string;
  limit: number;
  /** Entries older than this seq (from `next_cursor`). */
  before?: number;
  /** A workspace-scoped call: only entries about that workspace's objects (never a server-wide one), in every count too. */
  workspace?: string;
}

export interface AuditPage {
  items: AuditEntryView[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  next_cursor: string | null;
  /** Entries matching the filters, over every page. */
  total: number;
  /** Every action name in the log, whatever the filters. */
  actions: string[];
  retention: {
    /** SLUICE_AUDIT_LOG_LIMIT; null keeps every entry. */
    limit: number | null;
    entries: number;
    oldest_seq: number | null;
    newest_seq: number | null;
    /** Entries up to this seq were removed by retention (0: none). */
    anchor_seq: number;
  };
}

const FILTERS = ['action', 'actor', 'target', 'q', 'limit', 'cursor'] as const;
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

/** `next_cursor`: the seq of the last entry given. */
const CURSOR = cursorCodec('audit');

/** Reads the filters from query-string arguments: an unknown or repeated one, or a malformed value, is refused (400). */
export function parseAuditFilters(args: Record<string, string[]>): AuditFilters {
  const read = new FilterArgs(args, FILTERS);
  const filters: AuditFilters = {
    action: read.one('action'),
    actor: read.one('actor'),
    target: read.one('target'),
    q: read.one('q'),
    limit: read.limit('limit', MAX_LIMIT) ?? DEFAULT_LIMIT,
    before: read.cursor('cursor', CURSOR),
  };
  read.done();
  return filters;
}

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Entries newest first, one page at a time; the cursor is a seq, so entries written while paging never shift a page. */
export async function listAudit(db: StoreDb, filters: AuditFilters, limit: number | null): Promise<AuditPage> {
  const inWorkspace = filters.workspace === undefined ? undefined : eq(auditLog.workspace, filters.workspace);
  const conditions: SQL[] = inWorkspace ? [inWorkspace] : [];
  if (filters.action !== undefined) conditions.push(eq(auditLog.action, filters.action));
  if (filters.actor !== undefined) conditions.push(eq(auditLog.actor, filters.actor));
  if (filters.target !== undefined) conditions.push(eq(auditLog.target, filters.target));
  if (filters.q !== undefined) {
    const pattern = likePattern(filters.q);
    conditions.push(or(ilike(auditLog.target, pattern), ilike(sql`${auditLog.changes}::text`, pattern))!);
  }
  const where = and(...conditions);
  const rows = await db
    .select()
    .from(auditLog)
    .where(filters.before === undefined ? where : and(where, lt(auditLog.seq, filters.before)))
    .orderBy(desc(auditLog.seq))
    .limit(filters.limit + 1);
  const more = rows.length > filters.limit;
  const page = more ? rows.slice(0, filters.limit) : rows;
  const [{ total }] = await db.select({ total: count() }).from(auditLog).where(where);
  const actions = await db.selectDistinct({ action: auditLog.action }).from(auditLog).where(inWorkspace).orderBy(asc(auditLog.action));
  const [span] = await db.select({ entries: count(), oldest: min(auditLog.seq), newest: max(auditLog.seq) }).from(auditLog).where(inWorkspace);
  const anchor = await readAnchor(db);
  return {
    items: page.map(auditEntryView),
    next_cursor: more ? CURSOR.encode(page[page.length - 1].seq) : null,
    total,
    actions: actions.map((a) => a.action),
    retention: { limit, entries: span.entries, oldest_seq: span.oldest === null ? null : Number(span.oldest), newest_seq: span.newest === null ? null : Number(span.newest), anchor_seq: anchor.seq },
  };
}
