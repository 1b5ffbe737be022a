import { describe, expect, it } from 'vitest';
import { type PageWindow, readPage } from '../../origin/services/run/window.ts';

/** 1..n in batches of `size`, counting how many batches were pulled. */
function numbers(n: number, size: number) {
  const pulled = { batches: 0 };
  async function* batches() {
    for (let from = 1; from <= n; from += size) {
      pulled.batches++;
      yield Array.from({ length: Math.min(size, n - from + 1) }, (_, i) => from + i);
    }
  }
  return { batches: batches(), pulled };
}

const page = (n: number, size: number, window: PageWindow) => readPage(numbers(n, size).batches, window);

describe('readPage', () => {
  it('skips, keeps a page and probes one row past it', async () => {
    expect(await page(10, 3, { skip: 4, take: 3, probe: true })).toEqual({ rows: [5, 6, 7], hasMore: true });
    expect(await page(7, 3, { skip: 4, take: 3, probe: true })).toEqual({ rows: [5, 6, 7], hasMore: false });
    expect(await page(10, 3, { skip: 0, take: 3, probe: false })).toEqual({ rows: [1, 2, 3], hasMore: false });
    expect(await page(10, 3, { skip: 0, take: 0, probe: false })).toEqual({ rows: [], hasMore: false });
  });

  it('stops pulling once it knows whether another page exists', async () => {
    const source = numbers(1000, 10);
    await readPage(source.batches, { skip: 0, take: 10, probe: true });
    expect(source.pulled.batches).toBe(2);
  });

  it('counts the rows after the page up to countBeyond, then says there are more', async () => {
    expect(await page(25, 4, { skip: 2, take: 5, probe: true, countBeyond: 100 })).toEqual({ rows: [3, 4, 5, 6, 7], hasMore: true, leftOut: { rows: 18, more: false } });
    expect(await page(7, 4, { skip: 2, take: 5, probe: true, countBeyond: 100 })).toEqual({ rows: [3, 4, 5, 6, 7], hasMore: false, leftOut: { rows: 0, more: false } });
    expect((await page(17, 4, { skip: 0, take: 5, probe: true, countBeyond: 12 })).leftOut).toEqual({ rows: 12, more: false });
    expect((await page(18, 4, { skip: 0, take: 5, probe: true, countBeyond: 12 })).leftOut).toEqual({ rows: 12, more: true });
    const source = numbers(1000, 10);
    await readPage(source.batches, { skip: 0, take: 10, probe: true, countBeyond: 25 });
    expect(source.pulled.batches).toBe(4);
  });

  it('ends the page before a row that would pass maxBytes, neither reading nor counting further', async () => {
    // A number takes 32 bytes in the estimate: three fit in 100.
    const source = numbers(1000, 2);
    expect(await readPage(source.batches, { skip: 0, take: 10, probe: true, countBeyond: 100, maxBytes: 100 })).toEqual({ rows: [1, 2, 3], hasMore: true, cutAtBytes: 100 });
    expect(source.pulled.batches).toBe(2);
    expect(await page(3, 2, { skip: 0, take: 10, probe: true, maxBytes: 100 })).toEqual({ rows: [1, 2, 3], hasMore: false });
    async function* huge() {
      yield ['x'.repeat(1000), 'y'];
    }
    expect(await readPage(huge(), { skip: 0, take: 10, probe: true, maxBytes: 100 })).toEqual({ rows: [], hasMore: true, cutAtBytes: 100 });
  });
});
