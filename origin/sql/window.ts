import type { Dialect } from '../drivers/types.ts';
import { depths, isPunct } from './statements.ts';
import type { Token } from './tokenizer.ts';

/** A window bound: a digits-only literal, or a `:name` marker whose value is checked later. */
export type WindowNumber = { literal: string } | { marker: string };

export interface WindowClause {
  /** Token indexes `[from, to)` of the clause in the statement; it always runs to the end. */
  from: number;
  to: number;
  /** Null for no limit (`LIMIT ALL`, or `OFFSET m` alone). */
  limit: WindowNumber | null;
  offset: WindowNumber | null;
}

/**
 * `none`: no window, a new one can be appended; `clause`: the statement ends
 * with a window we understand; `unknown`: there is a window (or a trailing
 * clause such as FOR UPDATE) we do not understand, so the text must stay as is.
 */
export type WindowScan =
  | { kind: 'none' }
  | { kind: 'clause'; clause: WindowClause }
  | { kind: 'unknown' };

const STARTS = new Set(['LIMIT', 'OFFSET', 'FETCH']);
/** Locking clauses (FOR UPDATE, LOCK IN SHARE MODE) and INTO may not be followed by a LIMIT in every dialect. */
const BLOCKERS = new Set(['FOR', 'LOCK', 'INTO']);
/** SQLite takes no LIMIT after a VALUES list, alone or last in a compound. */
const SQLITE_BLOCKERS = new Set([...BLOCKERS, 'VALUES']);
const COMPOUND = new Set(['UNION', 'INTERSECT', 'EXCEPT']);

/**
 * Finds the statement's own row window: the trailing clause at paren depth 0
 * (a LIMIT in a subquery belongs to the subquery). Takes code tokens of one
 * statement, without comments or `;`.
 */
export function findWindow(tokens: Token[], dialect: Dialect): WindowScan {
  const depth = depths(tokens);
  const atTop = (i: number) => depth[i] === 0;
  const blockers = dialect === 'sqlite' ? SQLITE_BLOCKERS : BLOCKERS;
  if (tokens.some((t, i) => atTop(i) && blockers.has(t.word))) return { kind: 'unknown' };
  // ClickHouse binds a trailing LIMIT to the last SELECT of a compound, not to the whole result.
  if (dialect === 'clickhouse' && tokens.some((t, i) => atTop(i) && COMPOUND.has(t.word))) return { kind: 'unknown' };
  const from = tokens.findIndex((t, i) => atTop(i) && STARTS.has(t.word));
  if (from < 0) return { kind: 'none' };
  const clause = parseClause(tokens, from, dialect);
  return clause ? { kind: 'clause', clause } : { kind: 'unknown' };
}

/**
 * `LIMIT n|ALL`, `LIMIT m, n` (MySQL and SQLite only: postgres rejects it),
 * `OFFSET m [ROW|ROWS]`, `FETCH FIRST|NEXT [n] ROW|ROWS ONLY`, in either order,
 * each at most once, and nothing after them. Null for anything else
 * (`LIMIT 10 + 5`, `FETCH ... WITH TIES`, `LIMIT -1`).
 */
function parseClause(tokens: Token[], from: number, dialect: Dialect): WindowClause | null {
  let limit: WindowNumber | null | undefined;
  let offset: WindowNumber | undefined;
  let i = from;
  while (i < tokens.length) {
    const word = tokens[i].word;
    if (word === 'LIMIT' && limit === undefined) {
      if (tokens[i + 1]?.word === 'ALL') {
        limit = null;
        i += 2;
        continue;
      }
      const first = windowNumber(tokens[i + 1]);
      if (!first) return null;
      i += 2;
      if (isPunct(tokens[i], ',')) {
        const count = windowNumber(tokens[i + 1]);
        if (!count || offset !== undefined || (dialect !== 'mysql' && dialect !== 'sqlite')) return null;
        offset = first;
        limit = count;
        i += 2;
      } else {
        limit = first;
      }
    } else if (word === 'OFFSET' && offset === undefined) {
      const value = windowNumber(tokens[i + 1]);
      if (!value) return null;
      offset = value;
      i += 2;
      if (tokens[i]?.word === 'ROW' || tokens[i]?.word === 'ROWS') i++;
    } else if (word === 'FETCH' && limit === undefined) {
      const end = fetchEnd(tokens, i);
      if (end === null) return null;
      limit = end.count;
      i = end.next;
    } else {
      return null;
    }
  }
  return { from, to: tokens.length, limit: limit ?? null, offset: offset ?? null };
}

/** `FETCH FIRST|NEXT [n] ROW|ROWS ONLY`; the count defaults to one row. */
function fetchEnd(tokens: Token[], at: number): { count: WindowNumber; next: number } | null {
  let i = at + 1;
  if (tokens[i]?.word !== 'FIRST' && tokens[i]?.word !== 'NEXT') return null;
  i++;
  const given = windowNumber(tokens[i]);
  if (given) i++;
  if (tokens[i]?.word !== 'ROW' && tokens[i]?.word !== 'ROWS') return null;
  if (tokens[i + 1]?.word !== 'ONLY') return null;
  return { count: given ?? { literal: '1' }, next: i + 2 };
}

function windowNumber(token: Token | undefined): WindowNumber | null {
  if (token?.kind === 'marker') return { marker: token.text.slice(1) };
  if (token?.kind === 'number' && /^\d+$/.test(token.text)) return { literal: token.text };
  return null;
}
