import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { accessDirectory } from '../../access/directory.ts';
export { ownerOf } from '../../access/owner.ts';
import type { AppDeps } from '../../deps.ts';
import { SESSION_IDLE_MS, claimSession, endIdleSessions, endSession, recordSession, sessionIdHash, storedInit, touchSessions } from '../../services/mcp/session-records.ts';
import { queryChanges } from '../../services/queries/definition-cache.ts';
import { type McpSdk, loadMcpSdk } from './sdk.ts';
import { type SessionTools, createMcpServer } from './server.ts';
import { SessionEnds } from './session-ends.ts';
import { replayInitialize } from './take-up.ts';

/** Past this many sessions in memory the least recently used is dropped from it (it goes on, taken up again from the store on its next request). */
const MAX_SESSIONS = 1000;
/** How often the sessions look for grant and query changes (two counters compared: no store read). */
const CHECK_MS = 1000;
/** A session's use is written to the store at most this often, off the request. */
const TOUCH_MS = 60_000;
/** How often an origin holding sessions ends those idle too long, everywhere (one indexed delete). */
const SWEEP_MS = 10_000;
/** The ids this server gives (randomUUID): any other is unknown without asking the store. */
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface Session {
  owner: string;
  /** SHA-256 of the id, as the store knows it. */
  hash: string;
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  tools: SessionTools;
  /** The session's tool calls in flight on the direct path (direct-call.ts), by JSON-RPC id, for `notifications/cancelled`. */
  calls: Map<string | number, AbortController>;
  lastUsed: number;
  /** `lastUsed` as last written to the store. */
  touched: number;
  /** The listener's generation (session-ends.ts) when the session was last checked in the store. */
  checked: number;
}

/**
 * The MCP sessions of one origin process (Streamable HTTP, stateful: a
 * session's server remembers its client, and its GET stream carries
 * `notifications/tools/list_changed`). A session is recorded in the store
 * (session-records.ts) and held in the memory of the origins it is used on:
 * a request for a session this origin does not hold takes it up from the
 * store, and one ended anywhere is dropped everywhere (session-ends.ts, ADR
 * 0033). Every request is authenticated afresh by the app's middleware
 * before it reaches a session, so a revoked key is refused on its very next
 * request. When keys, roles, administrators, tokens, workspaces or queries
 * change (here, or on another origin sharing the store), every session is
 * told its tool list may have changed; a client lists again with its own
 * credentials.
 */
export class McpSessions {
  private readonly sessions = new Map<string, Session>();
  /** Take-ups in flight, by owner and id: concurrent requests for one session share one. */
  private readonly takingUp = new Map<string, Promise<Session | undefined>>();
  /** Ends heard while a take-up was in flight: such a session is not kept. */
  private readonly endedDuringTakeUp = new Set<string>();
  private readonly ends: SessionEnds;
  private timer: NodeJS.Timeout | undefined;
  private stamp = '';
  private swept = 0;

  constructor(
    private readonly deps: AppDeps,
    readonly sdk: McpSdk,
  ) {
    this.ends = new SessionEnds(deps, (hash) => this.ended(hash));
  }

  /** The session `id` when `owner` holds it: from memory, or taken up from the store. */
  find(id: string, owner: string): Session | undefined | Promise<Session | undefined> {
    const held = this.sessions.get(id);
    if (held && held.owner !== owner) return undefined;
    if (held && this.ends.live && held.checked === this.ends.generation) {
      held.lastUsed = Date.now();
      return held;
    }
    if (!SESSION_ID.test(id)) return undefined;
    const key = `${owner}\n${id}`;
    let pending = this.takingUp.get(key);
    if (!pending) {
      pending = this.takeUp(id, owner).finally(() => {
        this.takingUp.delete(key);
        if (this.takingUp.size === 0) this.endedDuringTakeUp.clear();
      });
      this.takingUp.set(key, pending);
    }
    return pending;
  }

  /**
   * A new session of `owner` for `message`, recorded in the store when it is
   * an `initialize` (before the SDK answers it, so that the id it gives is
   * valid everywhere). `settle` keeps it when the SDK started it, else
   * forgets it.
   */
  async start(owner: string, message: unknown): Promise<{ transport: WebStandardStreamableHTTPServerTransport; settle(): Promise<void> }> {
    const id = randomUUID();
    const session = this.open(owner, id);
    const initialize = Array.isArray(message) && message.length === 1 ? message[0] : message;
    const recorded = this.sdk.isInitializeRequest(initialize);
    if (recorded) for (const hash of await recordSession(this.deps.store, session.hash, owner, storedInit(initialize.params))) this.ended(hash);
    return {
      transport: session.transport,
      settle: async () => {
        if (session.transport.sessionId === id) return this.keep(id, session);
        void session.server.close();
        if (recorded) await endSession(this.deps.store, session.hash);
      },
    };
  }

  /** A server and transport for session `id`; a `DELETE` on it ends it everywhere. */
  private open(owner: string, id: string): Session {
    const tools: SessionTools = { listed: new Map() };
    const server = createMcpServer(this.sdk, this.deps.version, tools);
    const hash = sessionIdHash(id);
    const transport = new this.sdk.Transport({
      sessionIdGenerator: () => id,
      enableJsonResponse: true,
      onsessionclosed: async () => {
        const heard = this.ends.expect(hash);
        await endSession(this.deps.store, hash);
        await heard;
      },
    });
    const now = Date.now();
    const session: Session = { owner, hash, transport, server, tools, calls: new Map(), lastUsed: now, touched: now, checked: this.ends.generation };
    transport.onclose = () => {
      if (this.sessions.get(id) === session) this.sessions.delete(id);
    };
    void server.connect(transport);
    return session;
  }

  /**
   * Session `id` of `owner` as the store has it: one held in memory is
   * checked (memory cannot be trusted), another is made here as its client
   * initialized it.
   */
  private async takeUp(id: string, owner: string): Promise<Session | undefined> {
    const hash = sessionIdHash(id);
    const generation = this.ends.generation;
    const init = await claimSession(this.deps.store, hash, owner);
    const held = this.sessions.get(id);
    if (!init || this.endedDuringTakeUp.has(hash)) {
      if (held) this.close(id);
      return undefined;
    }
    if (held?.owner === owner) {
      held.lastUsed = held.touched = Date.now();
      held.checked = generation;
      return held;
    }
    const session = this.open(owner, id);
    session.checked = generation;
    await replayInitialize(session.transport, init);
    if (this.endedDuringTakeUp.has(hash)) {
      void session.server.close();
      return undefined;
    }
    this.keep(id, session);
    return session;
  }

  private keep(id: string, session: Session): void {
    if (this.sessions.size >= MAX_SESSIONS) this.close(leastRecentlyUsed([...this.sessions.entries()]));
    this.sessions.set(id, session);
    if (!this.timer) {
      this.stamp = this.changeStamp();
      this.timer = setInterval(() => this.check(), CHECK_MS);
      this.timer.unref();
    }
  }

  /** Drops a session from memory (the store keeps it). */
  private close(id: string): void {
    const session = this.sessions.get(id);
    this.sessions.delete(id);
    if (session) void session.server.close().catch(() => {});
  }

  /** Session `hash` was ended (here or on another origin). */
  private ended(hash: string): void {
    if (this.takingUp.size > 0) this.endedDuringTakeUp.add(hash);
    for (const [id, session] of this.sessions) if (session.hash === hash) this.close(id);
  }

  private changeStamp(): string {
    return `${accessDirectory(this.deps).changes()}.${queryChanges(this.deps.store)}`;
  }

  /** Drops idle sessions from memory, writes uses to the store, ends idle ones everywhere; tells the others when grants or queries changed. */
  private check(): void {
    const now = Date.now();
    for (const [id, session] of this.sessions) if (now - session.lastUsed > SESSION_IDLE_MS) this.close(id);
    this.writeUses(now);
    if (now - this.swept >= SWEEP_MS) {
      this.swept = now;
      // On a shared store the ends also come back as notifications; a failure waits for the next sweep.
      endIdleSessions(this.deps.store).then((hashes) => hashes.forEach((hash) => this.ended(hash)), () => {});
    }
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

  /** The sessions used here since their last write a minute or more ago, written in one statement; a failed write only lets a session's idle time run from an earlier use. */
  private writeUses(now: number): void {
    const due = [...this.sessions.values()].filter((session) => session.lastUsed > session.touched && now - session.touched >= TOUCH_MS);
    if (due.length === 0) return;
    for (const session of due) session.touched = now;
    touchSessions(
      this.deps.store,
      due.map((session) => session.hash),
    ).catch(() => {});
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
