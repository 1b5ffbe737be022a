import { type Server, createServer } from 'node:http';

/** What a test webhook saw: every request, and the entries of those it accepted. */
export interface Webhook {
  url: string;
  /** Requests answered, failed ones included. */
  requests: number;
  failures: number;
  /** Entries of accepted requests, in arrival order. */
  entries: any[];
  /** The Authorization header of the last request. */
  authorization: string | undefined;
  /** Fail the next `n` requests with 503. */
  failNext(n: number): void;
  close(): Promise<void>;
}

/** A real local HTTP server taking `POST /hook` with `{entries}`. */
export async function startWebhook(): Promise<Webhook> {
  let failing = 0;
  const hook: Omit<Webhook, 'url'> = {
    requests: 0,
    failures: 0,
    entries: [],
    authorization: undefined,
    failNext: (n) => {
      failing = n;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      hook.requests++;
      hook.authorization = req.headers.authorization;
      if (req.method !== 'POST' || !req.url?.startsWith('/hook')) {
        res.writeHead(404).end();
        return;
      }
      if (failing > 0) {
        failing--;
        hook.failures++;
        res.writeHead(503).end('try later');
        return;
      }
      hook.entries.push(...JSON.parse(Buffer.concat(chunks).toString('utf8')).entries);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  return Object.assign(hook, { url: `http://127.0.0.1:${port}/hook` }) as Webhook;
}
