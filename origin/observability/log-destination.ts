import pino from 'pino';

/**
 * Standard output (or standard error, for the `sluice` command, whose
 * standard output is its result) for log lines, off the request's path: the entries written
 * during one turn of the event loop are formatted and written together just
 * after it (a request's two lines cost no write, nor their formatting, before
 * its response goes out), and whatever is left when the process exits is
 * written then, synchronously.
 */
export function batchedOutput<T>(format: (entry: T) => string, dest: 1 | 2 = 1): { write(entry: T): void } {
  // pino's destination (sonic-boom) for the synchronous write: it retries when a non-blocking pipe is full.
  const out = pino.destination({ dest, sync: true });
  let pending: T[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const entries = pending;
    pending = [];
    let text = '';
    for (const entry of entries) text += format(entry);
    out.write(text);
  };
  process.on('exit', flush);
  return {
    write(entry) {
      pending.push(entry);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
  };
}
