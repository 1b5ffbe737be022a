/**
 * The parts of the MCP SDK the server uses, loaded on the first `/mcp`
 * request: ~20 MiB an origin that serves no agent never holds. A package
 * import, not a static one, so the bundle (scripts/build.mjs) keeps it lazy.
 */
export interface McpSdk {
  Server: typeof import('@modelcontextprotocol/sdk/server/index.js').Server;
  Transport: typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js').WebStandardStreamableHTTPServerTransport;
  McpError: typeof import('@modelcontextprotocol/sdk/types.js').McpError;
  ErrorCode: typeof import('@modelcontextprotocol/sdk/types.js').ErrorCode;
  CallToolRequestSchema: typeof import('@modelcontextprotocol/sdk/types.js').CallToolRequestSchema;
  ListToolsRequestSchema: typeof import('@modelcontextprotocol/sdk/types.js').ListToolsRequestSchema;
  isInitializeRequest: typeof import('@modelcontextprotocol/sdk/types.js').isInitializeRequest;
  SUPPORTED_PROTOCOL_VERSIONS: readonly string[];
}

let loading: Promise<McpSdk> | undefined;

export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(([server, http, types]) => ({
    Server: server.Server,
    Transport: http.WebStandardStreamableHTTPServerTransport,
    McpError: types.McpError,
    ErrorCode: types.ErrorCode,
    CallToolRequestSchema: types.CallToolRequestSchema,
    ListToolsRequestSchema: types.ListToolsRequestSchema,
    isInitializeRequest: types.isInitializeRequest,
    SUPPORTED_PROTOCOL_VERSIONS: types.SUPPORTED_PROTOCOL_VERSIONS,
  }));
  return loading;
}
