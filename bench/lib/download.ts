import { createWriteStream } from 'node:fs';
import { request } from 'node:http';

export interface Download {
  status: number;
  bytes: number;
  /** LF bytes seen: the row count (+1 for a header) of a line format. */
  lines: number;
  seconds: number;
  firstByteSeconds: number;
  contentType: string;
}

/**
 * POSTs a JSON body and reads the whole response as fast as the socket gives
 * it, counting bytes and line feeds (cheap: `indexOf` over each chunk), or
 * writing it to `saveTo`; `headers` go with it (an API key). Timing runs from the request to the last byte.
 */
export function download(url: string, body: unknown, saveTo?: string, headers: Record<string, string> = {}): Promise<Download> {
  const payload = Buffer.from(JSON.stringify(body));
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'content-length': payload.length },
      agent: false,
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let bytes = 0;
      let lines = 0;
      let firstByte = 0;
      const file = saveTo ? createWriteStream(saveTo) : null;
      res.on('data', (chunk: Buffer) => {
        if (firstByte === 0) firstByte = performance.now();
        bytes += chunk.length;
        if (file) {
          if (!file.write(chunk)) {
            res.pause();
            file.once('drain', () => res.resume());
          }
        } else {
          for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
        }
      });
      res.on('error', reject);
      res.on('end', () => {
        const done = () =>
          resolve({
            status: res.statusCode ?? 0,
            bytes,
            lines,
            seconds: (performance.now() - started) / 1000,
            firstByteSeconds: ((firstByte || performance.now()) - started) / 1000,
            contentType: String(res.headers['content-type'] ?? ''),
          });
        if (file) file.end(done);
        else done();
      });
    });
    req.end(payload);
  });
}
