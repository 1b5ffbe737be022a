import { type Server, type Socket, createServer } from 'node:net';

/**
 * A listener on loopback speaking just enough of the PostgreSQL protocol to
 * ask a client for its password in clear text (AuthenticationCleartextPassword,
 * `R` with code 3), as anyone pointing a connection at a machine of their own
 * could. It records every password it is sent, then refuses the login.
 */
export interface PasswordListener {
  port: number;
  /** Every password received, in order. */
  received: string[];
  close(): Promise<void>;
}

const SSL_REQUEST = 80_877_103;
const GSS_REQUEST = 80_877_104;

function message(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

const cleartextRequest = (): Buffer => {
  const body = Buffer.alloc(4);
  body.writeInt32BE(3, 0);
  return message('R', body);
};

const refusal = (): Buffer =>
  message('E', Buffer.from('SFATAL\0C28P01\0Mpassword authentication failed\0\0', 'latin1'));

function serve(socket: Socket, received: string[]): void {
  let pending = Buffer.alloc(0);
  let started = false;
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      if (!started) {
        // Untyped messages first: SSLRequest / GSSENCRequest (answered `N`), then the startup message.
        if (pending.length < 8) return;
        const length = pending.readInt32BE(0);
        if (pending.length < length) return;
        const code = pending.readInt32BE(4);
        pending = pending.subarray(length);
        if (code === SSL_REQUEST || code === GSS_REQUEST) {
          socket.write('N');
          continue;
        }
        started = true;
        socket.write(cleartextRequest());
        continue;
      }
      if (pending.length < 5) return;
      const length = pending.readInt32BE(1);
      if (pending.length < length + 1) return;
      const type = String.fromCharCode(pending[0]!);
      const body = pending.subarray(5, length + 1);
      pending = pending.subarray(length + 1);
      if (type === 'p') {
        received.push(body.toString('utf8').replace(/\0$/, ''));
        socket.end(refusal());
        return;
      }
    }
  });
}

/** Starts the listener on 127.0.0.1, on a free port. */
export async function startPasswordListener(): Promise<PasswordListener> {
  const received: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    serve(socket, received);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
