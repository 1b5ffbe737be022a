import { SluiceError, badRequest } from '../../errors.ts';

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
  const unknown = Object.keys(args).filter((name) => !(allowed as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new SluiceError('unknown_field', `Unknown filter${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}; use ${allowed.join(', ')}`, { fields: unknown });
  }
  const errors: Record<string, string> = {};
  const one = (name: FilterName): string | undefined => {
    const values = args[name];
    if (!values) return undefined;
    if (values.length > 1) errors[name] = 'was given more than once';
    return values[0] === '' ? undefined : values[0];
  };
  const filters: HistoryFilters = { limit: defaultLimit };

  const query = one('query');
  if (query !== undefined) filters.query = query;
  const key = one('key');
  if (key !== undefined) filters.key = key;

  const version = one('version');
  if (version !== undefined) {
    if (/^[1-9]\d{0,8}$/.test(version)) filters.version = Number(version);
    else errors.version = 'must be a whole number of at least 1';
  }
  const status = one('status');
  if (status !== undefined) {
    if (status === 'success' || status === 'error') filters.status = status;
    else errors.status = 'must be success or error';
  }
  for (const name of ['since', 'until'] as const) {
    const text = one(name);
    if (text === undefined) continue;
    const time = parseTime(text);
    if (time) filters[name] = time;
    else errors[name] = 'must be an ISO 8601 date or date and time (2024-05-01, 2024-05-01T12:00:00+02:00)';
  }
  const limit = one('limit');
  if (limit !== undefined) {
    if (/^\d{1,9}$/.test(limit) && Number(limit) >= 1 && Number(limit) <= MAX_LIMIT) filters.limit = Number(limit);
    else errors.limit = `must be a whole number from 1 to ${MAX_LIMIT}`;
  }
  const cursor = one('cursor');
  if (cursor !== undefined) {
    const before = decodeCursor(cursor);
    if (before !== null) filters.before = before;
    else errors.cursor = 'is not a cursor this server gave (use next_cursor as it came)';
  }

  const fields = Object.keys(errors);
  if (fields.length > 0) {
    throw badRequest(`Invalid filters: ${fields.map((field) => `${field} ${errors[field]}`).join('; ')}`, { errors });
  }
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

/** The cursor is opaque to clients: the id of the last run they were given. */
export const encodeCursor = (id: number) => Buffer.from(`run:${id}`).toString('base64url');

function decodeCursor(cursor: string): number | null {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  const match = /^run:(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match ? Number(match[1]) : null;
}
