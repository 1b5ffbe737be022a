import type { Value } from '../../values.ts';

export interface WindowedPage<T = Value[]> {
  rows: T[];
  hasMore: boolean;
  /** With `countBeyond`: the rows after the page, counted but not kept. */
  leftOut?: LeftOut;
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
}

/**
 * Reads one page from a batch stream: discards `skip` rows, keeps `take`, and
 * with `probe` reads one row more to learn whether another page exists (or,
 * with `countBeyond`, counts the rows after the page without keeping them).
 * Stops pulling as soon as it knows, so the rest of the cursor is never fetched.
 */
export async function readPage<T = Value[]>(batches: AsyncIterable<T[]>, window: PageWindow): Promise<WindowedPage<T>> {
  const rows: T[] = [];
  const counting = window.probe && window.countBeyond !== undefined;
  // Rows to read past the page before stopping.
  const past = window.probe ? 1 + (window.countBeyond ?? 0) : 0;
  let toSkip = window.skip;
  let beyond = 0;
  if (window.take + past === 0) return { rows, hasMore: false };
  for await (const batch of batches) {
    let i = 0;
    if (toSkip > 0) {
      i = Math.min(toSkip, batch.length);
      toSkip -= i;
    }
    for (; i < batch.length && rows.length < window.take; i++) rows.push(batch[i]);
    beyond += batch.length - i;
    if (rows.length === window.take && beyond >= past) break;
  }
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
