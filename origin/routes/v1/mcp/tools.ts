import { mcpRowOptions } from '../../../services/mcp/options.ts';
import { toolsFor } from '../../../services/mcp/tools.ts';
import { defineRoute } from '../contract.ts';

/**
 * GET /api/v1/mcp/tools: the tools the calling administrator gets on `/mcp`,
 * each with `name`, `description`, `kind` (`saved_query`, `ad_hoc` or
 * `schema`), `params` (name, required, JSON Schema), `read_only`, and the
 * `query` behind a saved-query tool.
 */
export const tools = defineRoute({
  method: 'get',
  path: '/tools',
  id: 'listMcpTools',
  summary: 'The MCP tools the caller gets: name, description, kind, params, read_only',
  handler: async (c) => {
    const deps = c.get('deps');
    const caller = c.get('caller');
    const offered = await toolsFor(deps, caller, mcpRowOptions(deps.env, caller).paging!.pageSize);
    return c.json({
      tools: offered.map((tool) => {
        const properties = (tool.inputSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
        const required = new Set((tool.inputSchema.required ?? []) as string[]);
        return {
          name: tool.name,
          description: tool.description,
          kind: tool.kind,
          params: Object.entries(properties).map(([name, schema]) => ({ name, required: required.has(name), schema })),
          read_only: tool.readOnly,
          ...(tool.query === undefined ? {} : { query: tool.query }),
        };
      }),
    });
  },
});
