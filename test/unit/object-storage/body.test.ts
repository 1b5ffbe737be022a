import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { watchBody } from '../../../origin/object-storage/body.ts';

/** An object's body on its way to a store (object-storage/body.ts): what it keeps of the chunks it passed on. */

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

describe('an object body', () => {
  it('keeps no chunk it has passed on while the body is still open', async () => {
    const passed: WeakRef<Uint8Array>[] = [];
    async function* source() {
      for (let i = 0; i < 20; i++) {
        const chunk = new Uint8Array(1024);
        passed.push(new WeakRef(chunk));
        yield chunk;
      }
    }
    const body = watchBody(source(), new AbortController().signal);
    const reader = body.chunks[Symbol.asyncIterator]();
    for (let i = 0; i < 20; i++) await reader.next();
    // A WeakRef holds its target until the job that made it ends.
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
    // The latest chunk is still held by the suspended generators themselves.
    const kept = passed.slice(0, -1).filter((ref) => ref.deref() !== undefined);
    expect(kept.length).toBe(0);
    expect(body.bytes).toBe(20 * 1024);
    await reader.return?.(undefined);
  });

  it('ends with the abort reason while waiting for a chunk', async () => {
    const abort = new AbortController();
    async function* stalled() {
      yield new Uint8Array(1);
      await new Promise(() => {});
    }
    const body = watchBody(stalled(), abort.signal);
    const reader = body.chunks[Symbol.asyncIterator]();
    await reader.next();
    const waiting = reader.next();
    const reason = new Error('cancelled');
    abort.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    expect(body.failure).toBe(reason);
  });
});
