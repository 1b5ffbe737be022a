import { defineResource } from '../contract.ts';
import { status } from './status.ts';
import { tools } from './tools.ts';

/**
 * `/api/v1/mcp`: the MCP endpoint seen from the Management API. The tool
 * list names queries (`queries.read`); the status reads the server's
 * settings (`settings.read`).
 */
export const mcpApi = defineResource({
  base: '/api/v1/mcp',
  area: 'queries',
  tag: { name: 'Management: MCP', description: 'The MCP endpoint: whether its port answers, and the tools the caller gets' },
  routes: [status, tools],
});
