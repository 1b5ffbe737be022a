import { roughJsonBytes } from './rough-size.ts';
import type { Value } from '../../values.ts';

/**
 * Rows fetched at a time for a page bounded in bytes (an MCP tool's): what
 * is in memory before the page can stop is at most this many rows.
 */
export const BYTE_BOUNDED_BATCH_SIZE = 50;

export interface WindowedPage<T = Value[]> {
  rows: T[];
  hasMore: boolean;
  /** With `countBeyond`: the rows after the page, counted but not kept. */
  leftOut?: LeftOut;
  /** With `maxBytes`: the page ended there, before `take` rows; the rows after it were not read. */
  cutAtBytes?: number;
}

/** Rows left out of a page: `rows` exactly, or more than `rows` when counting stopped at its bound. */
export interface LeftOut {
  rows: number;
  more: boolean;
}

export interface PageWindow {
  skip: number;
  take: number;
  /** Read past the page to learn whether another page exists. */
  probe: boolean;
  /** With `probe`: count up to this many rows after the page (MCP's note of what it left out). */
  countBeyond?: number;
  /** End the page before a row that would take its rows past about this many bytes of JSON. */
  maxBytes?: number;
}

/**
 * Reads one page from a batch stream: discards `skip` rows, keeps `take`, and
 * with `probe` reads one row more to learn whether another page exists (or,
 * with `countBeyond`, counts the rows after the page without keeping them).
 * With `maxBytes`, a row that would take the page past it ends the page
 * there, uncounted. Stops pulling as soon as it knows, so the rest of the
 * cursor is never fetched.
 */
export async function readPage<T = Value[]>(batches: AsyncIterable<T[]>, window: PageWindow): Promise<WindowedPage<T>> {
  const rows: T[] = [];
  const counting = window.probe && window.countBeyond !== undefined;
  // Rows to read past the page before stopping.
  const past = window.probe ? 1 + (window.countBeyond ?? 0) : 0;
  let toSkip = window.skip;
  let beyond = 0;
  let bytes = 0;
  let cut = false;
  if (window.take + past === 0) return { rows, hasMore: false };
  for await (const batch of batches) {
    let i = 0;
    if (toSkip > 0) {
      i = Math.min(toSkip, batch.length);
      toSkip -= i;
    }
    for (; i < batch.length && rows.length < window.take; i++) {
      if (window.maxBytes !== undefined) {
        bytes += roughJsonBytes(batch[i]);
        if (bytes > window.maxBytes) {
          cut = true;
          break;
        }
      }
      rows.push(batch[i]);
    }
    if (cut) break;
    beyond += batch.length - i;
    if (rows.length === window.take && beyond >= past) break;
  }
  if (cut) return { rows, hasMore: true, cutAtBytes: window.maxBytes };
  const page: WindowedPage<T> = { rows, hasMore: window.probe && beyond > 0 };
  if (counting) page.leftOut = beyond >= past ? { rows: past - 1, more: true } : { rows: beyond, more: false };
  return page;
}

/** Passes batches through, ending once `max` rows have gone by; `capped()` tells whether it cut. */
export function capRows(batches: AsyncIterable<Value[][]>, max: number | undefined) {
  let passed = 0;
  let capped = false;
  async function* limited() {
    for await (const batch of batches) {
      if (max !== undefined && passed + batch.length > max) {
        const rest = batch.slice(0, max - passed);
        passed += rest.length;
        capped = true;
        if (rest.length > 0) yield rest;
        return;
      }
      passed += batch.length;
      yield batch;
    }
  }
  return { batches: limited(), rows: () => passed, capped: () => capped };
}
