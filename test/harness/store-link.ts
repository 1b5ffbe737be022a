import { type Server, type Socket, createConnection, createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A loopback TCP relay to the test PostgreSQL server that a test can cut and
 * restore, for a store that goes away under a running origin. Cut, it resets
 * every relayed connection and stops listening, so new ones are refused:
 * what a client sees of `pg_ctl stop -m immediate`. (A private server would
 * need initdb, which refuses to run as root, as the test machine does.)
 */
export interface StoreLink {
  /** `postgres://postgres@127.0.0.1:<relay port>/<database>` */
  url(database: string): string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

const TARGET = { host: '127.0.0.1', port: 5432 };

export async function openStoreLink(): Promise<StoreLink> {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const listening = createServer((client) => {
        const upstream = createConnection(TARGET);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.once('close', () => sockets.delete(socket));
          socket.on('error', () => {});
        }
        client.pipe(upstream).pipe(client);
        client.once('close', () => upstream.destroy());
        upstream.once('close', () => client.destroy());
      });
      listening.once('error', reject);
      listening.listen(port, '127.0.0.1', () => {
        port = (listening.address() as AddressInfo).port;
        server = listening;
        resolve();
      });
    });

  const cut = async () => {
    const closing = server;
    server = null;
    for (const socket of sockets) socket.resetAndDestroy();
    if (closing) await new Promise((r) => closing.close(r));
  };

  await listen();
  return {
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    cut,
    restore: listen,
    close: cut,
  };
}
