import { mcpStatus } from '../../../services/mcp/status.ts';
import { defineRoute } from '../contract.ts';

/**
 * GET /api/v1/mcp/status: `{reachable, port}`, a plain TCP connect to
 * SLUICE_MCP_PORT (else the server's own port, where `/mcp` is served). It
 * reads the server's settings, so it needs `settings.read`.
 */
export const status = defineRoute({
  method: 'get',
  path: '/status',
  id: 'getMcpStatus',
  summary: '{reachable, port}: a plain TCP connect to SLUICE_MCP_PORT, else the server port',
  access: 'settings.read',
  handler: async (c) => {
    const { env, ports } = c.get('deps');
    const port = env.SLUICE_MCP_PORT ?? ports?.main ?? (env.SLUICE_PORT || null);
    return c.json(await mcpStatus(env.SLUICE_HOST, port));
  },
});
