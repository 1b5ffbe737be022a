import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticationRequired, callerAccess, canReach, canWrite, reachableQueries } from '../../origin/access/reachability.ts';
import type { Env } from '../../origin/env.ts';
import type { Caller } from '../../origin/http/context.ts';
import { resolveRunnable } from '../../origin/services/queries/resolve.ts';
import { type Store, openStore } from '../../origin/store/open.ts';
import { queries, queryVersions } from '../../origin/store/schema/index.ts';
import { templateDir } from '../harness/origin.ts';
import { unique } from '../api/queries-fixtures.ts';

/**
 * Reachability as it is before access control: administrators (the admin key,
 * anyone on an open server) reach every query; the anonymous caller of a
 * public endpoint reaches none. The run path asks the same function.
 */

const ADMIN: Caller = { name: 'admin', admin: true, via: 'break-glass' };
const OPEN: Caller = { name: '-', admin: true, via: 'open' };
const ANONYMOUS: Caller = { name: '-', admin: false, via: 'anonymous' };
/** A key that is not the admin key: none can exist before access control. */
const OTHER_KEY: Caller = { name: 'k', admin: false, via: 'key' };
const env = (allowWrites: boolean, apiKey?: string) => ({ SLUICE_ALLOW_WRITES: allowWrites, SLUICE_API_KEY: apiKey }) as Env;
const target = { name: 'q', collection: null };

describe('canReach, canWrite, callerAccess', () => {
  it('lets administrators reach any query and nobody else', () => {
    expect(canReach(ADMIN, target)).toBe(true);
    expect(canReach(OPEN, { name: 'q', collection: 'c' })).toBe(true);
    expect(canReach(ANONYMOUS, target)).toBe(false);
  });

  it('leaves any other key to access control, which decides by its grants (until then: every query)', () => {
    expect(canReach(OTHER_KEY, target)).toBe(true);
    expect(canReach({ admin: false }, target)).toBe(true);
    expect(canWrite({ SLUICE_ALLOW_WRITES: true } as Env, OTHER_KEY, target)).toBe(false);
  });

  it('allows writes only to administrators, and only with SLUICE_ALLOW_WRITES', () => {
    expect(canWrite(env(true), ADMIN, target)).toBe(true);
    expect(canWrite(env(true), OPEN, target)).toBe(true);
    expect(canWrite(env(false), ADMIN, target)).toBe(false);
    expect(canWrite(env(true), ANONYMOUS, target)).toBe(false);
  });

  it("describes the caller with the server's write setting and no limits", () => {
    expect(callerAccess(env(true), ADMIN)).toEqual({ name: 'admin', admin: true, allow_writes: true, allowed_write_ops: null, rate_limit: null, server_rate_limit: null });
    expect(callerAccess(env(false), OPEN)).toMatchObject({ name: '-', admin: true, allow_writes: false });
    expect(callerAccess(env(true), ANONYMOUS)).toMatchObject({ admin: false, allow_writes: false });
  });

  it('requires authentication exactly when a key is configured', () => {
    expect(authenticationRequired(env(false, 'k'))).toBe(true);
    expect(authenticationRequired(env(false))).toBe(false);
  });
});

describe('reachableQueries and the run path', () => {
  let dataDir: string;
  let store: Store;
  const tag = unique('r');
  const PUBLISHED = `reach published ${tag}`;
  const UNPUBLISHED = `reach unpublished ${tag}`;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'sluice-reach-'));
    await cp(templateDir(), dataDir, { recursive: true });
    store = await openStore({ dataDir });
    for (const [name, published] of [[PUBLISHED, 1], [UNPUBLISHED, null]] as const) {
      const [row] = await store.db.insert(queries).values({ name, publishedVersion: published, nextVersion: 2 }).returning();
      await store.db.insert(queryVersions).values({ queryId: row.id, version: 1, sql: 'select 1 as one', parameters: {} });
    }
  });

  afterAll(async () => {
    await store?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('lists the published queries, by name, with their published version, for an administrator', async () => {
    const reached = await reachableQueries({ store }, ADMIN);
    const names = reached.map((r) => r.query.name);
    expect(names).toContain(PUBLISHED);
    expect(names).not.toContain(UNPUBLISHED);
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(reached.find((r) => r.query.name === PUBLISHED)!.version.version).toBe(1);
  });

  it('lists nothing for the anonymous caller, whose runs answer like unknown queries', async () => {
    expect(await reachableQueries({ store }, ANONYMOUS)).toEqual([]);
    await expect(resolveRunnable({ store }, PUBLISHED, undefined, ANONYMOUS)).rejects.toMatchObject({ code: 'query_not_found' });
    await expect(resolveRunnable({ store }, PUBLISHED, 1, ANONYMOUS)).rejects.toMatchObject({ code: 'query_not_found' });
    const runnable = await resolveRunnable({ store }, PUBLISHED, undefined, ADMIN);
    expect(runnable.version.version).toBe(1);
  });
});
