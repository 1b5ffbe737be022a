import { type IncomingHttpHeaders, createServer, request } from 'node:http';
import { type Server, type Socket, createServer as createTcpServer, connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { type Edge, edgeFetch, edgeSecret, freePort, startEdge, waitForLog } from '../harness/edge.ts';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { recordingFetch } from '../harness/run-record.ts';
import { unique } from '../harness/unique.ts';

/**
 * The edge tests' stack: the real origin, the real Worker in Miniflare in
 * front of it, and two small proxies the tests control:
 *
 *   client -> edge -> spy -> origin          (the spy counts what reaches the origin)
 *   origin -> link -> edge                   (replica pushes; the link can be cut)
 */

export const ADMIN_KEY = 'edge-test-admin-key-0123456789abcdef';
export const ADMIN = { 'X-API-Key': ADMIN_KEY };

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

export interface Stack {
  origin: Origin;
  edge: Edge;
  secret: string;
  /** Requests the origin received through the spy, as `METHOD path`. */
  reached: string[];
  /** The headers of each of them, in the same order. */
  reachedHeaders: IncomingHttpHeaders[];
  /** Cuts (true) or restores (false) the origin's way to the edge. */
  cutLink(cut: boolean): void;
  /** Through the edge. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  /** A raw fetch of `path` through the edge (streams, bodies that are not JSON). */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** Straight to the origin. */
  direct(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  stop(): Promise<void>;
}

async function asAnswer(res: Response): Promise<Answer> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body };
}

/** Requests to `base` (the edge, or the origin straight), each response recorded for the whole-run secret scan. */
function sender(base: string, via: 'edge' | 'origin') {
  const fetchFrom = recordingFetch((path, init = {}) => edgeFetch(base + path, init), via);
  return {
    fetch: fetchFrom,
    call: async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      asAnswer(
        await fetchFrom(path, {
          method,
          headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      ),
  };
}

const listen = (server: Server | ReturnType<typeof createServer>) =>
  new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));

/** An HTTP proxy to `port` that notes each request; streams both ways. */
function spyOn(port: () => number, reached: string[], reachedHeaders: IncomingHttpHeaders[]) {
  return createServer((req, res) => {
    reached.push(`${req.method} ${req.url}`);
    reachedHeaders.push(req.headers);
    const upstream = request({ host: '127.0.0.1', port: port(), method: req.method, path: req.url, headers: req.headers as IncomingHttpHeaders }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
}

/** A TCP proxy to `port` whose connections can be refused at will (each accepted and at once destroyed). */
function link(port: () => number) {
  let cut = false;
  const open = new Set<Socket>();
  const server = createTcpServer((client) => {
    if (cut) return client.destroy();
    const upstream = connect(port(), '127.0.0.1');
    open.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  return {
    server,
    set(value: boolean) {
      cut = value;
      if (value) for (const socket of open) socket.destroy();
    },
  };
}

export interface StackOptions {
  env?: Record<string, string>;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const reached: string[] = [];
  const reachedHeaders: IncomingHttpHeaders[] = [];
  const secret = edgeSecret();
  const originPort = await freePort();
  const spy = spyOn(() => originPort, reached, reachedHeaders);
  const spyPort = await listen(spy);
  const edge = await startEdge({ originUrl: `http://127.0.0.1:${spyPort}`, secret });
  const edgePort = Number(new URL(edge.url).port);
  const pushLink = link(() => edgePort);
  const linkPort = await listen(pushLink.server);
  const origin = await startOrigin({
    edge: false,
    env: {
      SLUICE_API_KEY: ADMIN_KEY,
      SLUICE_PORT: String(originPort),
      SLUICE_EDGE_URL: `http://127.0.0.1:${linkPort}`,
      SLUICE_EDGE_SECRET: secret,
      ...options.env,
    },
  });
  await waitForLog(origin.logs, 'edge replica in sync');
  const viaEdge = sender(edge.url, 'edge');
  return {
    origin,
    edge,
    secret,
    reached,
    reachedHeaders,
    cutLink: (cut) => pushLink.set(cut),
    call: viaEdge.call,
    fetch: viaEdge.fetch,
    direct: sender(origin.url, 'origin').call,
    async stop() {
      await origin.stop();
      await edge.stop();
      pushLink.set(true);
      await Promise.all([new Promise((r) => pushLink.server.close(r)), new Promise((r) => spy.close(r))]);
      spy.closeAllConnections();
    },
  };
}

/** A published saved query under a unique name (on the examples connection). */
export async function createQuery(stack: Stack, fields: Record<string, unknown>, prefix = 'edge'): Promise<string> {
  const name = unique(prefix);
  const res = await stack.call('POST', '/api/v1/queries', { connection_name: 'examples', publish: true, ...fields, name }, ADMIN);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return name;
}

/** A scoped key under a unique name; its secret. */
export async function createKey(stack: Stack, grants: Record<string, unknown>, prefix = 'edge'): Promise<{ name: string; secret: string }> {
  const name = unique(prefix);
  const res = await stack.call('POST', '/api/v1/api-keys', { name, ...grants }, ADMIN);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { name, secret: res.body.secret };
}

/** `GET /q/<name>` through the edge. */
export const q = (stack: Stack, name: string, secret: string, search = '', headers: Record<string, string> = {}) =>
  stack.call('GET', `/q/${encodeURIComponent(name)}${search}`, undefined, { 'X-API-Key': secret, ...headers });

/** How many requests reached the origin while `work` ran. */
export async function originRequests(stack: Stack, work: () => Promise<unknown>): Promise<number> {
  const before = stack.reached.length;
  await work();
  return stack.reached.length - before;
}
