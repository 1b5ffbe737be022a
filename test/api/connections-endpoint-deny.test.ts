import { type Server, type Socket, createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';

/**
 * `POST /api/v1/connections/test` checks the hosts it would connect to
 * against SLUICE_ENDPOINT_DENY (here loopback addresses put in it) before
 * any driver connects: 400 `endpoint_denied`, and the listener behind the
 * denied address sees no connection. 127.0.0.3, not denied, still is tried.
 * Every address here is loopback.
 */

const API = '/api/v1/connections/test';

interface Listener {
  port: number;
  connections: number;
  close(): Promise<void>;
}

async function listener(host: string): Promise<Listener> {
  const counted: Listener = { port: 0, connections: 0, close: async () => {} };
  const server: Server = createServer((socket: Socket) => {
    counted.connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  counted.port = (server.address() as AddressInfo).port;
  counted.close = () => new Promise((r) => server.close(() => r()));
  return counted;
}

let origin: Origin;
const opened: Listener[] = [];

beforeAll(async () => {
  origin = await startOrigin({ env: { SLUICE_ENDPOINT_DENY: '127.0.0.1/32,127.0.0.2/32,::1' } });
});

afterAll(async () => {
  await Promise.all([origin?.stop(), ...opened.map((l) => l.close())]);
});

function expectDenied(res: { status: number; body: any }) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.code).toBe('endpoint_denied');
  expect(res.body.error).toContain('SLUICE_ENDPOINT_DENY');
}

describe('connection tests and SLUICE_ENDPOINT_DENY', () => {
  it('refuses a denied host of every network type, an address or a name resolving there, without connecting', async () => {
    const denied = await listener('127.0.0.2');
    const local = await listener('127.0.0.1');
    opened.push(denied, local);
    for (const db of ['postgres', 'mysql', 'clickhouse', 'mongodb']) {
      expectDenied(await origin.call('POST', API, { db, host: '127.0.0.2', port: denied.port, user: 'u', database: 'd' }));
      expectDenied(await origin.call('POST', API, { db, host: 'localhost', port: local.port, user: 'u', database: 'd' }));
    }
    expectDenied(await origin.call('POST', API, { db: 'mongodb', options: { uri: `mongodb://127.0.0.3:1,127.0.0.2:${denied.port}/d` } }));
    expect(denied.connections).toBe(0);
    expect(local.connections).toBe(0);
  });

  it('still tries a host outside the list', async () => {
    const allowed = await listener('127.0.0.3');
    opened.push(allowed);
    const res = await origin.call('POST', API, { db: 'postgres', host: '127.0.0.3', port: allowed.port, user: 'u', database: 'd' });
    expect(res.status, JSON.stringify(res.body)).toBe(502);
    expect(allowed.connections).toBeGreaterThan(0);
  });
});
