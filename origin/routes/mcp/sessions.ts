import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { accessDirectory } from '../../access/directory.ts';
export { ownerOf } from '../../access/owner.ts';
import type { AppDeps } from '../../deps.ts';
import { queryChanges } from '../../services/queries/definition-cache.ts';
import { type McpSdk, loadMcpSdk } from './sdk.ts';
import { type SessionTools, createMcpServer } from './server.ts';

/** A session unused this long is closed (its client starts a new one). */
const IDLE_MS = 30 * 60_000;
/** Past this many sessions the least recently used is closed: of the same caller first, then of anyone. */
const MAX_SESSIONS = 1000;
const MAX_SESSIONS_PER_CALLER = 100;
/** How often the sessions look for grant and query changes (two counters compared: no store read). */
const CHECK_MS = 1000;

export interface Session {
  owner: string;
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  tools: SessionTools;
  /** The session's tool calls in flight on the direct path (direct-call.ts), by JSON-RPC id, for `notifications/cancelled`. */
  calls: Map<string | number, AbortController>;
  lastUsed: number;
}

/**
 * The MCP sessions of one origin process (Streamable HTTP, stateful: a
 * session's server remembers its client, and its GET stream carries
 * `notifications/tools/list_changed`). Every request is authenticated
 * afresh by the app's middleware before it reaches a session, so a revoked
 * key is refused on its very next request. When keys, roles,
 * administrators, tokens, workspaces or queries change (here, or on another
 * origin sharing the store), every session is told its tool list may have
 * changed; a client lists again with its own credentials.
 */
export class McpSessions {
  private readonly sessions = new Map<string, Session>();
  private timer: NodeJS.Timeout | undefined;
  private stamp = '';

  constructor(
    private readonly deps: AppDeps,
    readonly sdk: McpSdk,
  ) {}

  /** The session `id` when `owner` holds it. */
  find(id: string, owner: string): Session | undefined {
    const session = this.sessions.get(id);
    if (!session || session.owner !== owner) return undefined;
    session.lastUsed = Date.now();
    return session;
  }

  /** A transport for a new session of `owner`; kept only once its `initialize` succeeds. */
  start(owner: string): { transport: WebStandardStreamableHTTPServerTransport; discardUnlessKept(): void } {
    const tools: SessionTools = { listed: new Map() };
    const server = createMcpServer(this.sdk, this.deps.version, tools);
    let session: Session | undefined;
    const transport = new this.sdk.Transport({
      sessionIdGenerator: randomUUID,
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        session = { owner, transport, server, tools, calls: new Map(), lastUsed: Date.now() };
        this.keep(id, session);
      },
      onsessionclosed: (id) => {
        this.sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    void server.connect(transport);
    return {
      transport,
      discardUnlessKept: () => {
        if (!session) void server.close();
      },
    };
  }

  private keep(id: string, session: Session): void {
    const own = [...this.sessions.entries()].filter(([, held]) => held.owner === session.owner);
    if (own.length >= MAX_SESSIONS_PER_CALLER) this.close(leastRecentlyUsed(own));
    else if (this.sessions.size >= MAX_SESSIONS) this.close(leastRecentlyUsed([...this.sessions.entries()]));
    this.sessions.set(id, session);
    if (!this.timer) {
      this.stamp = this.changeStamp();
      this.timer = setInterval(() => this.check(), CHECK_MS);
      this.timer.unref();
    }
  }

  private close(id: string): void {
    const session = this.sessions.get(id);
    this.sessions.delete(id);
    if (session) void session.server.close().catch(() => {});
  }

  private changeStamp(): string {
    return `${accessDirectory(this.deps).changes()}.${queryChanges(this.deps.store)}`;
  }

  /** Closes idle sessions; tells the others when grants or queries changed. */
  private check(): void {
    const now = Date.now();
    for (const [id, session] of this.sessions) if (now - session.lastUsed > IDLE_MS) this.close(id);
    if (this.sessions.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    const stamp = this.changeStamp();
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    for (const session of this.sessions.values()) void session.server.sendToolListChanged().catch(() => {});
  }
}

const leastRecentlyUsed = (entries: Array<[string, Session]>): string => entries.reduce((a, b) => (b[1].lastUsed < a[1].lastUsed ? b : a))[0];

const registries = new WeakMap<AppDeps, Promise<McpSessions>>();

/** The sessions of an app (one per `AppDeps`: the main port and SLUICE_MCP_PORT share them), made with the SDK on the first `/mcp` request. */
export function mcpSessions(deps: AppDeps): Promise<McpSessions> {
  let registry = registries.get(deps);
  if (!registry) {
    registry = loadMcpSdk().then((sdk) => new McpSessions(deps, sdk));
    registries.set(deps, registry);
  }
  return registry;
}
