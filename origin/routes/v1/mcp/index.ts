import { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { requireCapability } from '../require-capability.ts';
import { registerStatus } from './status.ts';
import { registerTools } from './tools.ts';

/**
 * `/api/v1/mcp`: the MCP endpoint seen from the Management API. The tool
 * list names queries (`queries.read`); the status reads the server's
 * settings (`settings.read`).
 */
export const mcpApi = new Hono<AppEnv>();
mcpApi.use(requireCapability('queries', { 'GET /status': 'settings.read' }));
registerStatus(mcpApi);
registerTools(mcpApi);
