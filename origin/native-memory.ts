import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * Collections run by hand where memory V8 does not see would otherwise wait
 * for one. DuckDB result chunks own native memory (their vectors, their strings),
 * freed only when V8 collects the small JS objects that wrap them. V8 does
 * not know that memory is there, so a loop that makes little garbage of its
 * own (a pushed-down stream of finished lines) can hold hundreds of MB of dead
 * chunks before any collection runs. A young-generation collection every few
 * chunks frees them, about a millisecond each (measured in ADR 0007).
 */

type Collect = (options?: { type: 'minor' | 'major' }) => void;

let collect: Collect | null | undefined;

function collector(): Collect | null {
  if (collect !== undefined) return collect;
  try {
    const exposed = (globalThis as { gc?: Collect }).gc;
    if (exposed) collect = exposed;
    else {
      v8.setFlagsFromString('--expose-gc');
      collect = vm.runInNewContext('gc') as Collect;
    }
  } catch {
    collect = null;
  }
  return collect;
}

/** Frees dead chunk wrappers (and what they hold) now. Never throws. */
export function collectYoungGarbage(): void {
  try {
    collector()?.({ type: 'minor' });
  } catch {
    // best effort
  }
}

let heapAfterLastCollection = 0;

/**
 * A full collection once the heap has grown by `bytes` since the last one:
 * for a loop that keeps a large batch alive across many young collections (a
 * parquet row group), so its dead predecessors reach the old generation,
 * which V8 otherwise lets grow by ~150 MB. Checking is cheap; collecting costs
 * tens of ms in a full server, so only when it pays. Never throws.
 */
export function collectIfHeapGrew(bytes: number): void {
  try {
    const used = process.memoryUsage().heapUsed;
    if (used - heapAfterLastCollection < bytes) return;
    collector()?.();
    heapAfterLastCollection = process.memoryUsage().heapUsed;
  } catch {
    // best effort
  }
}
