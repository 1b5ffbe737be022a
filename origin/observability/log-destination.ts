import pino, { type DestinationStream } from 'pino';

/**
 * Standard output for log lines, off the request's path: the lines written
 * during one turn of the event loop are formatted and written together just
 * after it (a request's two lines cost no write, nor their formatting, before
 * its response goes out), and whatever is left when the process exits is
 * written then, synchronously.
 */
export function batchedStdout(format: (line: string) => string): DestinationStream {
  const out = pino.destination({ dest: 1, sync: true });
  let pending: string[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const lines = pending;
    pending = [];
    let text = '';
    for (const line of lines) text += format(line);
    out.write(text);
  };
  process.on('exit', flush);
  return {
    write(line: string) {
      pending.push(line);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
  };
}
