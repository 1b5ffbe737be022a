import { connect } from 'node:net';

export interface McpStatus {
  /** A plain TCP connection to `port` was accepted. */
  reachable: boolean;
  /** SLUICE_MCP_PORT when set, else the server's own port (where `/mcp` is always served); null when unknown. */
  port: number | null;
}

const CONNECT_TIMEOUT_MS = 2000;

/** Where to connect for a listener bound to `host`: a wildcard address is reached on loopback. */
const dialable = (host: string) => (host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '::1' : host);

/** `GET /api/v1/mcp/status`: opens and closes one TCP connection to the MCP port, nothing more. */
export async function mcpStatus(host: string, port: number | null): Promise<McpStatus> {
  if (port === null || port === 0) return { reachable: false, port: null };
  const reachable = await new Promise<boolean>((resolve) => {
    const socket = connect({ host: dialable(host), port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(CONNECT_TIMEOUT_MS, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
  return { reachable, port };
}
