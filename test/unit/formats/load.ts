/** A large synthetic result (6 columns) and memory sampling for the streaming tests (bench/ has its own copy). */
import v8 from 'node:v8';
import vm from 'node:vm';
import type { ColumnMeta } from '../../../origin/drivers/types.ts';
import { Instant, SqlDate, type Value } from '../../../origin/values.ts';

export const LOAD_COLUMNS: ColumnMeta[] = [
  { name: 'id', dbType: 'int8', kind: 'integer' },
  { name: 'name', dbType: 'text', kind: 'text' },
  { name: 'score', dbType: 'float8', kind: 'float' },
  { name: 'active', dbType: 'bool', kind: 'boolean' },
  { name: 'day', dbType: 'date', kind: 'date' },
  { name: 'at', dbType: 'timestamptz', kind: 'timestamptz' },
];

const DAY = new SqlDate('2024-01-15');

export interface LoadSource {
  batches: AsyncIterable<Value[][]>;
  /** Rows handed out so far. */
  produced(): number;
  /** Whether the consumer closed the source (return()) or it ran to the end. */
  closed(): boolean;
}

/** `total` rows in batches of `size`; `onBatch` runs before each batch is handed out. */
export function loadSource(total: number, size = 1000, onBatch?: (produced: number) => void): LoadSource {
  let produced = 0;
  let closed = false;
  async function* generate(): AsyncIterable<Value[][]> {
    try {
      while (produced < total) {
        onBatch?.(produced);
        const n = Math.min(size, total - produced);
        const batch: Value[][] = new Array(n);
        for (let k = 0; k < n; k++) {
          const i = produced + k;
          batch[k] = [i, `name ${i}`, i * 0.25, i % 3 === 0, DAY, new Instant(1_700_000_000_000_000n + BigInt(i) * 1_000_000n)];
        }
        produced += n;
        yield batch;
      }
    } finally {
      closed = true;
    }
  }
  return { batches: generate(), produced: () => produced, closed: () => closed };
}

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

export interface MemorySample {
  rows: number;
  heapMiB: number;
  externalMiB: number;
  rssMiB: number;
}

const mib = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;

/** Heap after a full collection, so samples compare live data rather than garbage. */
export function sampleMemory(rows: number): MemorySample {
  gc();
  const m = process.memoryUsage();
  return { rows, heapMiB: mib(m.heapUsed), externalMiB: mib(m.external + m.arrayBuffers), rssMiB: mib(m.rss) };
}
