import { describe, expect, it } from 'vitest';
import type { AdminRole } from '../../../origin/access/capabilities.ts';
import {
  type AccessTarget,
  callerAccess,
  canBrowseConnection,
  canReach,
  canRunDraft,
  canUseConnection,
  canWrite,
  canWriteConnection,
} from '../../../origin/access/reachability.ts';
import type { Env } from '../../../origin/env.ts';
import type { Caller } from '../../../origin/access/caller.ts';
import { type KeyGrants, emptyGrants } from '../../../shared/access/grants.ts';
import { parseRate } from '../../../shared/access/rate.ts';

/**
 * Reachability decisions on their own (spec, Authentication 5 and 6): which
 * grant reaches which query, which carries writes, and what the server's
 * write setting caps.
 */

const key = (grants: Partial<KeyGrants>, workspace = 'default'): Caller => ({
  name: 'k',
  admin: false,
  via: 'key',
  key: { id: 1, name: 'k', workspace, grants: { ...emptyGrants(), ...grants } },
});
const administrator = (role: AdminRole | null, memberships: Record<string, AdminRole> = {}): Caller => ({
  name: 'ada',
  admin: false,
  via: 'token',
  administrator: { id: 1, name: 'ada', role, memberships, tokenId: 't1' },
});
const ADMIN: Caller = { name: 'admin', admin: true, via: 'break-glass' };
const ANONYMOUS: Caller = { name: '-', admin: false, via: 'anonymous' };
const WRITES = { SLUICE_ALLOW_WRITES: true } as Env;
const NO_WRITES = { SLUICE_ALLOW_WRITES: false } as Env;

const q = (over: Partial<AccessTarget> = {}): AccessTarget => ({
  name: 'sales',
  collection: 'reports',
  workspace: 'default',
  connectionName: 'warehouse',
  connectionWorkspace: 'default',
  ...over,
});

describe('canReach', () => {
  it('lets the admin key reach everything and the anonymous caller nothing', () => {
    expect(canReach(ADMIN, q())).toBe(true);
    expect(canReach(ANONYMOUS, q())).toBe(false);
    expect(canReach({ admin: false }, q())).toBe(false);
  });

  it('reaches through a connections grant of the connection the query runs on, or *', () => {
    expect(canReach(key({ connections: ['warehouse'] }), q())).toBe(true);
    expect(canReach(key({ connections: ['other'] }), q())).toBe(false);
    expect(canReach(key({ connections: ['*'] }), q())).toBe(true);
    expect(canReach(key({ connections: ['*'] }), q({ connectionName: null }))).toBe(true);
    expect(canReach(key({ connections: ['warehouse'] }), q({ connectionName: null }))).toBe(false);
    expect(canReach(key({ connections: [] }), q())).toBe(false);
  });

  it('reaches through a queries grant: a name, an object entry, or *', () => {
    expect(canReach(key({ queries: ['sales'] }), q())).toBe(true);
    expect(canReach(key({ queries: [{ name: 'sales', allow_writes: true }] }), q())).toBe(true);
    expect(canReach(key({ queries: ['*'] }), q({ name: 'anything', connectionName: null }))).toBe(true);
    expect(canReach(key({ queries: ['Sales', 'other'] }), q())).toBe(false);
  });

  it('reaches through a collections grant of the collection the query is in now, on any connection', () => {
    expect(canReach(key({ collections: ['reports'] }), q())).toBe(true);
    expect(canReach(key({ collections: ['reports'] }), q({ connectionName: 'elsewhere' }))).toBe(true);
    expect(canReach(key({ collections: ['reports'] }), q({ collection: 'moved' }))).toBe(false);
    expect(canReach(key({ collections: ['reports'] }), q({ collection: null }))).toBe(false);
  });

  it('lets administrators reach what their role may run: server-wide, else their membership in the query workspace', () => {
    expect(canReach(administrator('developer'), q())).toBe(true);
    expect(canReach(administrator('auditor'), q())).toBe(false);
    expect(canReach(administrator(null), q())).toBe(false);
    expect(canReach(administrator(null, { team: 'developer' }), q({ workspace: 'team', connectionWorkspace: 'team' }))).toBe(true);
    expect(canReach(administrator(null, { team: 'developer' }), q())).toBe(false);
    expect(canReach(administrator('auditor', { team: 'owner' }), q({ workspace: 'team', connectionWorkspace: 'team' }))).toBe(false);
  });
});

describe('workspace boundaries', () => {
  const everything = { connections: ['*'], queries: ['*'], collections: ['reports'] };

  it("keeps a key to its workspace's queries: every grant, * included, means this workspace's", () => {
    expect(canReach(key(everything, 'team'), q({ workspace: 'team', connectionWorkspace: 'team' }))).toBe(true);
    for (const grants of [{ connections: ['*'] }, { connections: ['warehouse'] }, { queries: ['*'] }, { queries: ['sales'] }, { collections: ['reports'] }]) {
      expect(canReach(key(grants, 'team'), q()), JSON.stringify(grants)).toBe(false);
      expect(canReach(key(grants), q({ workspace: 'team', connectionWorkspace: 'team' })), JSON.stringify(grants)).toBe(false);
    }
  });

  it('runs a query for a key only on connections of its workspace; an unsaved connection name is left to the run', () => {
    expect(canReach(key(everything), q({ connectionWorkspace: 'team' }))).toBe(false);
    expect(canReach(key({ queries: ['sales'] }), q({ connectionName: 'away', connectionWorkspace: 'team' }))).toBe(false);
    expect(canReach(key({ queries: ['sales'] }), q({ connectionName: 'unsaved', connectionWorkspace: null }))).toBe(true);
    expect(canWrite(WRITES, key({ queries: [{ name: 'sales', allow_writes: true }] }), q({ connectionWorkspace: 'team' }))).toBe(false);
  });

  it('lets a workspace member run a query only on connections of its workspace; server-wide roles and the admin key anywhere', () => {
    const member = administrator(null, { team: 'developer', default: 'developer' });
    expect(canReach(member, q({ workspace: 'team', connectionWorkspace: 'team' }))).toBe(true);
    expect(canReach(member, q({ workspace: 'team', connectionWorkspace: 'default' }))).toBe(false);
    expect(canReach(administrator('developer'), q({ connectionWorkspace: 'team' }))).toBe(true);
    expect(canReach(ADMIN, q({ connectionWorkspace: 'team' }))).toBe(true);
  });

  it('gives a key ad-hoc SQL and browsing only on granted connections of its workspace', () => {
    const away = { name: 'warehouse', workspace: 'team' };
    expect(canUseConnection(key({ connections: ['*'] }), away)).toBe(false);
    expect(canUseConnection(key({ connections: ['warehouse'] }), away)).toBe(false);
    expect(canBrowseConnection(key({ connections: ['*'] }), away)).toBe(false);
    expect(canWriteConnection(WRITES, key({ connections: ['*'], allow_writes: true }), away)).toBe(false);
    expect(canUseConnection(key({ connections: ['*'] }, 'team'), away)).toBe(true);
    expect(canUseConnection(ADMIN, away)).toBe(true);
  });
});

describe('canRunDraft', () => {
  it('allows drafts to the admin key and administrators whose role may edit queries, never to keys', () => {
    expect(canRunDraft(ADMIN, q())).toBe(true);
    expect(canRunDraft(administrator('developer'), q())).toBe(true);
    expect(canRunDraft(administrator('auditor'), q())).toBe(false);
    expect(canRunDraft(administrator(null, { team: 'admin' }), q({ workspace: 'team', connectionWorkspace: 'team' }))).toBe(true);
    expect(canRunDraft(key({ queries: ['*'], connections: ['*'] }), q())).toBe(false);
  });
});

describe('canWrite', () => {
  it('carries writes through a connections grant with allow_writes, or an object entry; never *, names or collections', () => {
    expect(canWrite(WRITES, key({ connections: ['warehouse'], allow_writes: true }), q())).toBe(true);
    expect(canWrite(WRITES, key({ connections: ['*'], allow_writes: true }), q())).toBe(true);
    expect(canWrite(WRITES, key({ connections: ['warehouse'] }), q())).toBe(false);
    expect(canWrite(WRITES, key({ queries: [{ name: 'sales', allow_writes: true }] }), q())).toBe(true);
    expect(canWrite(WRITES, key({ queries: [{ name: 'sales', allow_writes: false }] }), q())).toBe(false);
    expect(canWrite(WRITES, key({ queries: ['sales'], allow_writes: true }), q())).toBe(false);
    expect(canWrite(WRITES, key({ queries: ['*'], allow_writes: true }), q())).toBe(false);
    expect(canWrite(WRITES, key({ collections: ['reports'], allow_writes: true }), q())).toBe(false);
    // Reached by name, run on a connection the key's write grant does not cover.
    expect(canWrite(WRITES, key({ queries: ['sales'], connections: ['other'], allow_writes: true }), q())).toBe(false);
  });

  it('is never wider than SLUICE_ALLOW_WRITES', () => {
    expect(canWrite(NO_WRITES, key({ connections: ['*'], allow_writes: true }), q())).toBe(false);
    expect(canWrite(NO_WRITES, key({ queries: [{ name: 'sales', allow_writes: true }] }), q())).toBe(false);
    expect(canWrite(NO_WRITES, ADMIN, q())).toBe(false);
    expect(canWrite(WRITES, ADMIN, q())).toBe(true);
    expect(canWrite(WRITES, administrator('developer'), q())).toBe(true);
    expect(canWrite(WRITES, administrator('auditor'), q())).toBe(false);
    expect(canWrite(WRITES, ANONYMOUS, q())).toBe(false);
  });
});

describe('ad-hoc SQL and schema browsing', () => {
  const warehouse = { name: 'warehouse', workspace: 'default' };

  it('needs a connections grant for a key: queries and collections grants never allow ad-hoc SQL', () => {
    expect(canUseConnection(key({ connections: ['warehouse'] }), warehouse)).toBe(true);
    expect(canUseConnection(key({ connections: ['*'] }), warehouse)).toBe(true);
    expect(canUseConnection(key({ queries: ['*'], collections: ['reports'] }), warehouse)).toBe(false);
    expect(canBrowseConnection(key({ connections: ['warehouse'] }), warehouse)).toBe(true);
    expect(canBrowseConnection(key({ queries: ['*'] }), warehouse)).toBe(false);
    expect(canUseConnection(ANONYMOUS, warehouse)).toBe(false);
  });

  it('writes ad hoc only with allow_writes on a granted connection, under the server ceiling', () => {
    expect(canWriteConnection(WRITES, key({ connections: ['warehouse'], allow_writes: true }), warehouse)).toBe(true);
    expect(canWriteConnection(WRITES, key({ connections: ['warehouse'] }), warehouse)).toBe(false);
    expect(canWriteConnection(WRITES, key({ connections: ['other'], allow_writes: true }), warehouse)).toBe(false);
    expect(canWriteConnection(NO_WRITES, key({ connections: ['warehouse'], allow_writes: true }), warehouse)).toBe(false);
    expect(canWriteConnection(WRITES, ADMIN, warehouse)).toBe(true);
  });

  it('lets administrators run SQL with data.run and browse with connections.read, in the connection workspace', () => {
    expect(canUseConnection(administrator('developer'), warehouse)).toBe(true);
    expect(canUseConnection(administrator('auditor'), warehouse)).toBe(false);
    expect(canBrowseConnection(administrator('auditor'), warehouse)).toBe(true);
    expect(canUseConnection(administrator(null, { team: 'developer' }), { name: 'w', workspace: 'team' })).toBe(true);
    expect(canBrowseConnection(administrator(null, { team: 'auditor' }), warehouse)).toBe(false);
  });
});

describe('callerAccess', () => {
  it("reports a key's own write settings, narrowed by the server, its rate limit and its budget", () => {
    const budget = { max_estimated_rows: 10_000, rows_per_day: null, db_seconds_per_day: 60 };
    const k = key({ allow_writes: true, allowed_write_ops: ['insert'], rate_limit: '10/minute', budget });
    expect(callerAccess(WRITES, k)).toEqual({ name: 'k', admin: false, allow_writes: true, allowed_write_ops: ['insert'], rate_limit: '10/minute', server_rate_limit: null, budget });
    expect(callerAccess(NO_WRITES, k).allow_writes).toBe(false);
    expect(callerAccess(WRITES, key({})).allow_writes).toBe(false);
  });

  it('reports administrators and the admin key under the server setting, with no key limits', () => {
    expect(callerAccess(WRITES, ADMIN)).toEqual({ name: 'admin', admin: true, allow_writes: true, allowed_write_ops: null, rate_limit: null, server_rate_limit: null, budget: null });
    expect(callerAccess(WRITES, administrator('developer')).allow_writes).toBe(true);
    expect(callerAccess(WRITES, administrator('auditor')).allow_writes).toBe(false);
    expect(callerAccess(WRITES, administrator(null, { team: 'developer' })).allow_writes).toBe(true);
    expect(callerAccess(WRITES, ANONYMOUS).allow_writes).toBe(false);
  });

  it('reports SLUICE_RATE_LIMIT as N/period', () => {
    expect(callerAccess({ ...WRITES, SLUICE_RATE_LIMIT: parseRate('100/minutes')! }, ADMIN).server_rate_limit).toBe('100/minute');
  });
});
