import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ToolListChangedNotificationSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll } from 'vitest';
import { ADMIN_KEY, type GrantsEnv, startGrantsOrigin } from '../grants/fixture.ts';
import { recordingFetch } from '../harness/run-record.ts';

/**
 * The SDK's own client over Streamable HTTP, as an agent runs it, with the
 * credential headers a client configuration gives it. Every response is
 * recorded for the whole-run secret scan, and the `X-Request-Id` of each is
 * kept, so a test can look a tool call's run up in the history.
 */
export interface McpClient {
  client: Client;
  /** Request ids of the `/mcp` responses so far, oldest first. */
  requestIds: string[];
  tools(): Promise<Tool[]>;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** Resolves on the next `notifications/tools/list_changed`. */
  nextListChanged(): Promise<void>;
  close(): Promise<void>;
}

export async function connectMcp(url: string, headers: Record<string, string>, via: 'origin' | 'edge' = 'origin'): Promise<McpClient> {
  const endpoint = new URL(url);
  const requestIds: string[] = [];
  const recorded = recordingFetch((path, init) => fetch(new URL(path, endpoint), init), via);
  const transport = new StreamableHTTPClientTransport(endpoint, {
    requestInit: { headers },
    fetch: async (input, init) => {
      const target = new URL(String(input));
      const res = await recorded(target.pathname + target.search, init);
      const id = res.headers.get('x-request-id');
      if (id) requestIds.push(id);
      return res;
    },
  });
  const client = new Client({ name: 'sluice-test', version: '1.0.0' });
  let waiting: Array<() => void> = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    const resolved = waiting;
    waiting = [];
    for (const resolve of resolved) resolve();
  });
  await client.connect(transport);
  return {
    client,
    requestIds,
    tools: async () => (await client.listTools()).tools,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    nextListChanged: () => new Promise<void>((resolve) => waiting.push(resolve)),
    close: () => client.close(),
  };
}

/** The text of a tool result's content, joined. */
export const textOf = (result: CallToolResult): string =>
  result.content.map((item) => (item.type === 'text' ? item.text : '')).join('\n');

/**
 * For a file's tests: an origin with the grants fixture's PostgreSQL
 * connection, and an MCP client holding the server key; both stopped after
 * the file. Read `env` and `client` inside tests, once `beforeAll` ran.
 */
export function adminMcp(): { readonly env: GrantsEnv; readonly client: McpClient } {
  let env: GrantsEnv | undefined;
  let client: McpClient | undefined;
  beforeAll(async () => {
    env = await startGrantsOrigin();
    client = await connectMcp(`${env.origin.url}/mcp`, { 'X-API-Key': ADMIN_KEY });
  });
  afterAll(async () => {
    await client?.close();
    await env?.stop();
  });
  return {
    get env() {
      return env!;
    },
    get client() {
      return client!;
    },
  };
}
