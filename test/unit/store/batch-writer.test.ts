import { describe, expect, it } from 'vitest';
import { BatchWriter } from '../../../origin/store/batch-writer.ts';

const logger = { info() {}, warn() {}, error() {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A writer whose writes take `writeMs` each, recording every batch. */
function slowWriter(writeMs: number, options: { flushIntervalMs: number; batchSize?: number }) {
  const batches: number[][] = [];
  const writer = new BatchWriter<number>({
    what: 'unit',
    logger,
    ...options,
    async write(batch) {
      await sleep(writeMs);
      batches.push(batch);
    },
  });
  return { writer, batches };
}

describe('BatchWriter', () => {
  it('writes once per interval under steady adds, not once per add after its first write', async () => {
    const { writer, batches } = slowWriter(20, { flushIntervalMs: 300 });
    let n = 0;
    const until = Date.now() + 1_000;
    while (Date.now() < until) {
      writer.add(n++);
      await sleep(5);
    }
    await writer.close();
    // One write per 300 ms wait: about four. Writing what arrived during each write at once gives one per ~20 ms.
    expect(batches.length).toBeLessThanOrEqual(6);
    expect(batches.flat()).toEqual(Array.from({ length: n }, (_, i) => i));
  });

  it('flushes what was queued before it, after a write under way that began earlier', async () => {
    const { writer, batches } = slowWriter(50, { flushIntervalMs: 10 });
    writer.add(1);
    await sleep(25); // the timer's write of [1] is under way
    writer.add(2);
    await writer.flush();
    expect(batches).toEqual([[1], [2]]);
    await writer.close();
  });

  it('starts a write at once when a batch fills during a write, after that write', async () => {
    const { writer, batches } = slowWriter(30, { flushIntervalMs: 60_000, batchSize: 3 });
    for (const i of [1, 2, 3]) writer.add(i);
    await sleep(10); // the full batch's write is under way
    for (const i of [4, 5, 6]) writer.add(i);
    await sleep(150);
    expect(batches).toEqual([[1, 2, 3], [4, 5, 6]]);
    await writer.close();
  });
});
