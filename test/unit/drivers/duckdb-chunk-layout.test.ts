import { describe, expect, it } from 'vitest';
import { chunkLayout } from '../../../origin/drivers/duckdb/parquet-file.ts';

/** How DuckDB is asked to cut a result's parquet chunks (ADR 0030): whole vectors per row group, enough groups per file. */
describe('chunkLayout', () => {
  it('rounds the row group to whole vectors of 2,048 rows', () => {
    expect(chunkLayout(1_000_000, 10_000).groupRows).toBe(10_240);
    expect(chunkLayout(1_000_000, 7_500).groupRows).toBe(8_192);
    expect(chunkLayout(1_000_000, 1_000).groupRows).toBe(2_048);
  });

  it('puts at least the rows asked in a file, within one row group', () => {
    for (const [chunkRows, groupRows] of [
      [1_000_000, 10_000],
      [100_000, 10_000],
      [100_000, 60_000],
      [250_000, 1_000],
    ] as const) {
      const layout = chunkLayout(chunkRows, groupRows);
      const rows = layout.groups * layout.groupRows;
      expect(rows).toBeGreaterThanOrEqual(chunkRows);
      expect(rows - chunkRows).toBeLessThan(layout.groupRows);
    }
  });

  it('makes one group of the chunk when the chunk is smaller than a group', () => {
    expect(chunkLayout(5_000, 10_000)).toEqual({ groups: 1, groupRows: 10_240 });
  });
});
