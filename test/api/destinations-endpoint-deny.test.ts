import { type Server, createServer as createTcpServer } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../harness/edge.ts';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type TestS3, startS3 } from '../harness/s3.ts';
import { unique } from '../harness/unique.ts';

/**
 * Destination tests may not be used to probe the network: an endpoint in
 * SLUICE_ENDPOINT_DENY (here loopback addresses put in it) is refused with
 * 400 `endpoint_denied` before any connection, its host name resolved first;
 * and an endpoint that cannot be reached answers one generic detail whether
 * nothing listens, the connection is reset or something not S3 answers. A
 * reachable S3 that refuses the credential still says why. Every address
 * here is loopback.
 */

const API = '/api/v1/destinations';
const BUCKET = 'sluice-deny';
const GENERIC = 'could not reach the endpoint, or it did not answer as an S3-compatible store';

interface Listener {
  port: number;
  connections: number;
  close(): Promise<void>;
}

/** A TCP listener on `host` counting connections; `onConnect` decides what each gets. */
async function listener(host: string, onConnect: (socket: import('node:net').Socket) => void = (s) => s.destroy()): Promise<Listener> {
  const counted: Listener = { port: 0, connections: 0, close: async () => {} };
  const server: Server = createTcpServer((socket) => {
    counted.connections++;
    onConnect(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  counted.port = (server.address() as AddressInfo).port;
  counted.close = () => new Promise((r) => server.close(() => r()));
  return counted;
}

let s3: TestS3;
let origin: Origin;
/** Denies all of loopback: a name resolving there is refused too. */
let strict: Origin;
const opened: Listener[] = [];

beforeAll(async () => {
  s3 = await startS3({ buckets: [BUCKET] });
  [origin, strict] = await Promise.all([
    startOrigin({ env: { SLUICE_ENDPOINT_DENY: '127.0.0.2/32, 169.254.0.0/16' } }),
    startOrigin({ env: { SLUICE_ENDPOINT_DENY: '127.0.0.0/8,::1' } }),
  ]);
});

afterAll(async () => {
  await Promise.all([origin?.stop(), strict?.stop(), s3?.stop(), ...opened.map((l) => l.close())]);
});

const fields = (endpoint: string, extra: Record<string, unknown> = {}) => ({
  url: `s3://${BUCKET}/probes/${unique('p')}`,
  endpoint,
  region: s3.region,
  user: s3.accessKeyId,
  password: s3.secretAccessKey,
  ...extra,
});

function expectDenied(res: { status: number; body: any }) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.code).toBe('endpoint_denied');
  expect(res.body.error).toContain('SLUICE_ENDPOINT_DENY');
}

describe('SLUICE_ENDPOINT_DENY', () => {
  it('refuses an endpoint inside a denied range before connecting to it', async () => {
    const counting = await listener('127.0.0.2');
    opened.push(counting);
    expectDenied(await origin.call('POST', `${API}/test`, fields(`http://127.0.0.2:${counting.port}`)));
    const name = unique('denied');
    expect((await origin.call('POST', API, { name, ...fields(`http://127.0.0.2:${counting.port}`) })).status).toBe(201);
    expectDenied(await origin.call('POST', `${API}/${name}/test`));
    expect(counting.connections).toBe(0);
  });

  it('resolves a host name first: one that resolves into a denied range is refused too', async () => {
    const counting = await listener('127.0.0.1');
    opened.push(counting);
    expectDenied(await strict.call('POST', `${API}/test`, fields(`http://localhost:${counting.port}`)));
    expectDenied(await strict.call('POST', `${API}/test`, fields(`http://127.0.0.1:${counting.port}`)));
    expect(counting.connections).toBe(0);
  });

  it('still lets an allowed endpoint through', async () => {
    const res = await origin.call('POST', `${API}/test`, fields(s3.endpoint));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it('a malformed range stops startup, naming the variable', async () => {
    const failed = await startOrigin({ env: { SLUICE_ENDPOINT_DENY: '10.0.0.0/33' }, template: false }).then(
      (o) => o.stop().then(() => null),
      (err: Error) => err,
    );
    expect(failed?.message).toMatch(/SLUICE_ENDPOINT_DENY/);
  });
});

describe('what an unreachable endpoint tells', () => {
  it('the same generic detail for nothing listening, a reset connection and a server that is not S3', async () => {
    const closedPort = await freePort();
    const resetting = await listener('127.0.0.1', (socket) => socket.resetAndDestroy());
    opened.push(resetting);
    const http = createHttpServer((_req, res) => res.writeHead(401, { 'content-type': 'text/plain' }).end('who are you?'));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    opened.push({ port: 0, connections: 0, close: () => new Promise((r) => http.close(() => r())) });
    const httpPort = (http.address() as AddressInfo).port;

    const details = [];
    for (const port of [closedPort, resetting.port, httpPort]) {
      const res = await origin.call('POST', `${API}/test`, fields(`http://127.0.0.1:${port}`));
      expect(res.status, JSON.stringify(res.body)).toBe(502);
      expect(res.body.code).toBe('connection_failed');
      expect(res.body.detail).toContain(GENERIC);
      // The probe's object name is random (its hex may spell 401) and its prefix the caller's own: the rest is the same.
      const detail = res.body.detail.replace(/probes\/p_[0-9a-f]+\/\.sluice-probe-[0-9a-f-]+/, '');
      expect(detail).not.toMatch(/E[A-Z]{4,}|HTTP \d|hang up|401/);
      details.push(detail);
    }
    expect(new Set(details).size).toBe(1);
  });

  it('a reachable S3 that refuses the credential still names the problem', async () => {
    const res = await origin.call('POST', `${API}/test`, fields(s3.endpoint, { user: 'AKIANOBODYKNOWS0000' }));
    expect(res.status).toBe(502);
    expect(res.body.detail).toContain('InvalidAccessKeyId');
  });
});
