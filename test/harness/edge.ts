import { randomBytes } from 'node:crypto';
import { type AddressInfo, createServer } from 'node:net';
import type { LocalEdge } from '../../edge/local/miniflare.ts';
import { recordOutput, recordSecret } from './run-record.ts';

/** The edge Worker in Miniflare, as the tests run it (edge/local/miniflare.ts). */
export type Edge = LocalEdge;

/** A new random edge secret (64 hex characters). */
export const edgeSecret = () => randomBytes(32).toString('hex');

/**
 * Starts the real Worker on workerd in front of `originUrl`, on a free port.
 * Its secret and workerd's own output go to the run's record (run-record.ts).
 */
export async function startEdge(options: { originUrl: string; secret: string; bindings?: Record<string, string> }): Promise<Edge> {
  recordSecret('SLUICE_EDGE_SECRET', options.secret);
  // Imported here, not above: Miniflare takes a second to load, and most files that import this one never start an edge.
  const { startLocalEdge } = await import('../../edge/local/miniflare.ts');
  return startLocalEdge({ ...options, output: (stdout, stderr) => recordOutput('workerd', [stdout, stderr]) });
}

/**
 * `fetch` for requests to workerd. It closes a keep-alive connection after
 * 5 s idle without saying so, and undici keeps one 4 s: on a loaded machine
 * a request can be written to a connection the edge has just closed, which
 * fails before the edge read anything. Such a request is sent once more.
 */
export async function edgeFetch(url: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    if (cause?.code !== 'UND_ERR_SOCKET' || init.body instanceof ReadableStream) throw err;
    return fetch(url, init);
  }
}

/** A port free right now (for a process that must be told its port before it starts). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once a line containing `text` is among `logs` (an origin's collected output). */
export async function waitForLog(logs: string[], text: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!logs.some((line) => line.includes(text))) {
    if (Date.now() > deadline) throw new Error(`no log line with "${text}" in ${timeoutMs / 1000} s:\n${logs.join('\n')}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
