import { randomInt } from 'node:crypto';
import type { LoadTarget } from './load.ts';

/**
 * What each server is asked in the `peers` scenario: the same row, page and
 * table through each one's own API. Sluice: saved queries under `/q` with a
 * scoped key. PostGraphile: its GraphQL `filmById` and `allFilms` (keyset on
 * the primary key through its cursors). Platformatic DB: its REST routes
 * `/films/:id` and `/films?where.id.gt=...`.
 */

export const PAGE_ROWS = 1000;
/** PostGraphile has no largest page; it reads the whole table in pages of this many rows. */
export const POSTGRAPHILE_TABLE_PAGE = 10_000;
export const CACHED_ID = 4242;

const COLUMNS = 'id qty price name createdAt updatedAt';
const ROW_QUERY = `query($id: BigInt!) { filmById(id: $id) { ${COLUMNS} } }`;
const PAGE_QUERY = `query($first: Int!, $after: Cursor) { allFilms(first: $first, after: $after, orderBy: PRIMARY_KEY_ASC) { nodes { ${COLUMNS} } } }`;

/** PostGraphile 4's cursor for a row ordered by primary key: base64 of `["primary_key_asc", [id]]`. */
const cursorAfter = (id: number) => Buffer.from(JSON.stringify(['primary_key_asc', [id]])).toString('base64');

export type ServerName = 'sluice' | 'postgraphile' | 'platformatic';
export const SERVERS: ServerName[] = ['sluice', 'postgraphile', 'platformatic'];

export interface Urls {
  sluice: string;
  postgraphile: string;
  platformatic: string;
  /** Sluice's scoped key for `/q`. */
  key: string;
}

const graphql = (url: string, query: string, variables: () => Record<string, unknown>): LoadTarget => ({
  url: `${url}/graphql`,
  perRequest: () => ({ headers: { 'content-type': 'application/json' }, body: { query, variables: variables() } }),
});

/** A random id of the table's `rows` (ids 0..rows-1); a random `after` leaving a whole page. */
const randomId = (rows: number) => randomInt(0, rows);
const randomAfter = (rows: number) => randomInt(-1, Math.max(0, rows - PAGE_ROWS));

export function rowTarget(server: ServerName, urls: Urls, rows: number): LoadTarget {
  switch (server) {
    case 'sluice':
      return { url: urls.sluice, perRequest: () => ({ method: 'GET', path: `/q/films_row?id=${randomId(rows)}`, headers: { 'x-api-key': urls.key } }) };
    case 'postgraphile':
      return graphql(urls.postgraphile, ROW_QUERY, () => ({ id: String(randomId(rows)) }));
    case 'platformatic':
      return { url: urls.platformatic, perRequest: () => ({ method: 'GET', path: `/films/${randomId(rows)}`, headers: {} }) };
  }
}

export function cachedRowTarget(urls: Urls): LoadTarget {
  return { url: urls.sluice, perRequest: () => ({ method: 'GET', path: `/q/films_row_cached?id=${CACHED_ID}`, headers: { 'x-api-key': urls.key } }) };
}

export function pageTarget(server: ServerName, urls: Urls, rows: number): LoadTarget {
  switch (server) {
    case 'sluice':
      return { url: urls.sluice, perRequest: () => ({ method: 'GET', path: `/q/films_page?after=${randomAfter(rows)}&page_size=${PAGE_ROWS}`, headers: { 'x-api-key': urls.key } }) };
    case 'postgraphile':
      return graphql(urls.postgraphile, PAGE_QUERY, () => ({ first: PAGE_ROWS, after: cursorAfter(randomAfter(rows)) }));
    case 'platformatic':
      return { url: urls.platformatic, perRequest: () => ({ method: 'GET', path: `/films?where.id.gt=${randomAfter(rows)}&orderby.id=asc&limit=${PAGE_ROWS}`, headers: {} }) };
  }
}

interface Film {
  id: string;
}

/**
 * A peer's whole table, page after page at its largest page size, each page
 * after the last id of the one before (keyset), until a short page. Returns
 * the rows read.
 */
export async function readAllPages(server: 'postgraphile' | 'platformatic', urls: Urls, pageSize: number): Promise<number> {
  let after = -1;
  let total = 0;
  for (;;) {
    let page: Film[];
    if (server === 'platformatic') {
      const res = await fetch(`${urls.platformatic}/films?where.id.gt=${after}&orderby.id=asc&limit=${pageSize}`);
      if (!res.ok) throw new Error(`platformatic page after ${after}: ${res.status} ${await res.text()}`);
      page = (await res.json()) as Film[];
    } else {
      const res = await fetch(`${urls.postgraphile}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: PAGE_QUERY, variables: { first: pageSize, after: after < 0 ? null : cursorAfter(after) } }),
      });
      const body = (await res.json()) as { data?: { allFilms: { nodes: Film[] } }; errors?: unknown };
      if (!res.ok || !body.data) throw new Error(`postgraphile page after ${after}: ${res.status} ${JSON.stringify(body.errors)}`);
      page = body.data.allFilms.nodes;
    }
    total += page.length;
    if (page.length < pageSize) return total;
    after = Number(page[page.length - 1].id);
  }
}
