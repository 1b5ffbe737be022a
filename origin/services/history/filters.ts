import { FilterArgs, cursorCodec } from '../../filter-args.ts';

export interface HistoryFilters {
  query?: string;
  version?: number;
  status?: 'success' | 'error';
  key?: string;
  /** Inclusive. */
  since?: Date;
  /** Exclusive. */
  until?: Date;
  limit: number;
  /** Runs older than this id (from `next_cursor`). */
  before?: number;
}

export type FilterName = 'query' | 'version' | 'status' | 'key' | 'since' | 'until' | 'limit' | 'cursor';

export const MAX_LIMIT = 1000;

/** `YYYY-MM-DD`, or a date and time with an optional zone; without one, the server's zone. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Reads the history filters from query-string arguments. A name not in
 * `allowed`, a repeated argument or a malformed value is refused (400), so a
 * mistyped filter never silently widens the list.
 */
export function parseHistoryFilters(args: Record<string, string[]>, allowed: readonly FilterName[], defaultLimit: number): HistoryFilters {
  const read = new FilterArgs(args, allowed);
  const filters: HistoryFilters = { query: read.one('query'), key: read.one('key'), limit: defaultLimit };
  const version = read.one('version');
  if (version !== undefined) {
    if (/^[1-9]\d{0,8}$/.test(version)) filters.version = Number(version);
    else read.refuse('version', 'must be a whole number of at least 1');
  }
  const status = read.one('status');
  if (status !== undefined) {
    if (status === 'success' || status === 'error') filters.status = status;
    else read.refuse('status', 'must be success or error');
  }
  for (const name of ['since', 'until'] as const) {
    const text = read.one(name);
    if (text === undefined) continue;
    const time = parseTime(text);
    if (time) filters[name] = time;
    else read.refuse(name, 'must be an ISO 8601 date or date and time (2024-05-01, 2024-05-01T12:00:00+02:00)');
  }
  filters.limit = read.limit('limit', MAX_LIMIT) ?? defaultLimit;
  filters.before = read.cursor('cursor', CURSOR);
  read.done();
  return filters;
}

function parseTime(text: string): Date | null {
  if (!ISO_TIME.test(text)) return null;
  const [year, month, day] = text.slice(0, 10).split('-').map(Number);
  const calendar = new Date(Date.UTC(year, month - 1, day));
  if (calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return null; // 2024-02-30
  // A date alone is midnight in the server's zone, like a date and time without a zone.
  const normalized = text.length === 10 ? `${text}T00:00:00` : text.replace(' ', 'T');
  const time = new Date(normalized);
  return Number.isNaN(time.getTime()) ? null : time;
}

/** `next_cursor`: the id of the last run given. */
export const CURSOR = cursorCodec('run');
