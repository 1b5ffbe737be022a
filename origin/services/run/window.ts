import type { Value } from '../../values.ts';

export interface WindowedPage {
  rows: Value[][];
  hasMore: boolean;
}

/**
 * Reads one page from a batch stream: discards `skip` rows, keeps `take`, and
 * with `probe` reads one row more to learn whether another page exists. Stops
 * pulling as soon as it knows, so the rest of the cursor is never fetched.
 */
export async function readPage(batches: AsyncIterable<Value[][]>, window: { skip: number; take: number; probe: boolean }): Promise<WindowedPage> {
  const rows: Value[][] = [];
  let toSkip = window.skip;
  const wanted = window.take + (window.probe ? 1 : 0);
  if (wanted === 0) return { rows, hasMore: false };
  for await (const batch of batches) {
    let start = 0;
    if (toSkip > 0) {
      start = Math.min(toSkip, batch.length);
      toSkip -= start;
    }
    for (let i = start; i < batch.length && rows.length < wanted; i++) rows.push(batch[i]);
    if (rows.length >= wanted) break;
  }
  const hasMore = rows.length > window.take;
  if (hasMore) rows.length = window.take;
  return { rows, hasMore };
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
