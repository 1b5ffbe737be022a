/** Synthetic rows for the formats scenario: 6 columns of the value model, made on the fly in batches. */
import type { ColumnMeta } from '../../origin/drivers/types.ts';
import { Instant, SqlDate, type Value } from '../../origin/values.ts';

export const SYNTHETIC_COLUMNS: ColumnMeta[] = [
  { name: 'id', dbType: 'int8', kind: 'integer' },
  { name: 'name', dbType: 'text', kind: 'text' },
  { name: 'score', dbType: 'float8', kind: 'float' },
  { name: 'active', dbType: 'bool', kind: 'boolean' },
  { name: 'day', dbType: 'date', kind: 'date' },
  { name: 'at', dbType: 'timestamptz', kind: 'timestamptz' },
];

const DAY = new SqlDate('2024-01-15');

/** `total` rows in batches of `size`; `onBatch` runs before each batch is handed out. */
export async function* syntheticRows(total: number, size: number, onBatch: () => void): AsyncIterable<Value[][]> {
  for (let produced = 0; produced < total; produced += size) {
    onBatch();
    const n = Math.min(size, total - produced);
    const batch: Value[][] = new Array(n);
    for (let k = 0; k < n; k++) {
      const i = produced + k;
      batch[k] = [i, `name ${i}`, i * 0.25, i % 3 === 0, DAY, new Instant(1_700_000_000_000_000n + BigInt(i) * 1_000_000n)];
    }
    yield batch;
  }
}
