/**
 * The body of an object on its way to a store: counted, and cut short when
 * the write's signal aborts, even while the source is waiting for its next
 * chunk (a query still running). A body that ends early, by abort or by its
 * own error, throws into the writer, which then removes what it wrote; the
 * error is kept so the writer reports it rather than its own cleanup's.
 */
export interface WatchedBody {
  chunks: AsyncIterable<Uint8Array>;
  /** Bytes passed on so far. */
  readonly bytes: number;
  /** The error the body ended with (the abort's reason, or the source's own), if it did. */
  readonly failure: unknown;
}

/**
 * The source's next chunk, or the abort's reason if the signal fires first.
 * One listener per chunk, removed once it arrives: racing each chunk against
 * one promise pending for the whole body left a reaction per race on it,
 * which kept every chunk passed reachable until the body ended.
 */
function nextOrAbort<T>(iterator: AsyncIterator<T>, signal: AbortSignal): Promise<IteratorResult<T>> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    iterator
      .next()
      .then(resolve, reject)
      .finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export function watchBody(source: AsyncIterable<Uint8Array>, signal: AbortSignal): WatchedBody {
  let bytes = 0;
  let failure: unknown;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    const iterator = source[Symbol.asyncIterator]();
    let finished = false;
    try {
      for (;;) {
        let next: IteratorResult<Uint8Array>;
        try {
          signal.throwIfAborted();
          next = await nextOrAbort(iterator, signal);
        } catch (err) {
          failure = err;
          throw err;
        }
        if (next.done) {
          finished = true;
          return;
        }
        bytes += next.value.byteLength;
        // An error thrown in here is the writer's (its stream torn down), not the body's.
        yield next.value;
      }
    } finally {
      // Cut short: let the source release what it holds (a cursor), without waiting on it.
      if (!finished) Promise.resolve().then(() => iterator.return?.()).catch(() => {});
    }
  }
  return {
    chunks: chunks(),
    get bytes() {
      return bytes;
    },
    get failure() {
      return failure;
    },
  };
}
