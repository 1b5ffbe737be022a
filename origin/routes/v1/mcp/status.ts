import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { mcpStatus } from '../../../services/mcp/status.ts';

/** GET /api/v1/mcp/status: `{reachable, port}`, a plain TCP connect to SLUICE_MCP_PORT (else the server's own port, where `/mcp` is served). */
export function registerStatus(api: Hono<AppEnv>): void {
  api.get('/status', async (c) => {
    const { env, ports } = c.get('deps');
    const port = env.SLUICE_MCP_PORT ?? ports?.main ?? (env.SLUICE_PORT || null);
    return c.json(await mcpStatus(env.SLUICE_HOST, port));
  });
}
