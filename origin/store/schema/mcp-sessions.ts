import { index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * MCP sessions (`/mcp`, docs/guides/mcp.md), so that any origin on the store
 * can take a session up (ADR 0033). The id is a bearer value: only its
 * SHA-256 is kept, as for key secrets.
 */
export const mcpSessions = pgTable(
  'mcp_sessions',
  {
    /** Hex SHA-256 of the `Mcp-Session-Id`. */
    idHash: text('id_hash').primaryKey(),
    /** `ownerOf` the caller that started it: only that caller may use it. */
    owner: text('owner').notNull(),
    /** The client's `initialize` params (protocol version, capabilities, client info), played again on an origin that takes the session up. */
    init: jsonb('init').$type<Record<string, unknown>>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** The store's clock, moved on at most once a minute while the session is used: idle past 30 minutes, it is gone. */
    lastUsed: timestamp('last_used', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('mcp_sessions_owner_used').on(t.owner, t.lastUsed), index('mcp_sessions_used').on(t.lastUsed)],
);
