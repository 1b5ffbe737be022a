import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticationRequired, callerAccess, reachableQueries } from '../../origin/access/reachability.ts';
import type { Env } from '../../origin/env.ts';
import type { Caller } from '../../origin/access/caller.ts';
import { resolveRunnable } from '../../origin/services/queries/resolve.ts';
import { type Store, openStore } from '../../origin/store/open.ts';
import { queries, queryVersions } from '../../origin/store/schema/index.ts';
import { templateDir } from '../harness/origin.ts';
import { type KeyGrants, emptyGrants } from '../../shared/access/grants.ts';
import { unique } from '../harness/unique.ts';

/**
 * Reachability on a store: `/catalog` and `/openapi.json` list exactly what
 * the run path lets the same caller run. The decisions themselves are tested
 * in test/unit/access/reachability.test.ts; black-box runs with real keys in
 * test/grants/.
 */

const ADMIN: Caller = { name: 'admin', admin: true, via: 'break-glass' };
const OPEN: Caller = { name: '-', admin: true, via: 'open' };
const ANONYMOUS: Caller = { name: '-', admin: false, via: 'anonymous' };
const key = (grants: Partial<KeyGrants>): Caller => ({
  name: 'k',
  admin: false,
  via: 'key',
  key: { id: 1, name: 'k', workspace: 'default', grants: { ...emptyGrants(), ...grants } },
});
const env = (allowWrites: boolean) => ({ SLUICE_ALLOW_WRITES: allowWrites }) as Env;

describe('callerAccess and authenticationRequired', () => {
  it("describes administrators with the server's write setting and no limits", () => {
    expect(callerAccess(env(true), ADMIN)).toEqual({ name: 'admin', admin: true, allow_writes: true, allowed_write_ops: null, rate_limit: null, server_rate_limit: null, budget: null });
    expect(callerAccess(env(false), OPEN)).toMatchObject({ name: '-', admin: true, allow_writes: false });
    expect(callerAccess(env(true), ANONYMOUS)).toMatchObject({ admin: false, allow_writes: false });
  });

  it('requires authentication exactly when the server is not open', () => {
    expect(authenticationRequired(OPEN)).toBe(false);
    expect(authenticationRequired(ADMIN)).toBe(true);
    expect(authenticationRequired(ANONYMOUS)).toBe(true);
    expect(authenticationRequired(key({}))).toBe(true);
  });
});

describe('reachableQueries and the run path', () => {
  let dataDir: string;
  let store: Store;
  const tag = unique('r');
  const PUBLISHED = `reach published ${tag}`;
  const UNPUBLISHED = `reach unpublished ${tag}`;
  const ON_OTHER = `reach other ${tag}`;
  const COLLECTION = `reach_${tag}`;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'sluice-reach-'));
    await cp(templateDir(), dataDir, { recursive: true });
    store = await openStore({ dataDir });
    const rows = [
      [PUBLISHED, 1, 'examples', null],
      [UNPUBLISHED, null, 'examples', null],
      [ON_OTHER, 1, `other ${tag}`, COLLECTION],
    ] as const;
    for (const [name, published, connectionName, collection] of rows) {
      const [row] = await store.db.insert(queries).values({ name, publishedVersion: published, nextVersion: 2, collection }).returning();
      await store.db.insert(queryVersions).values({ queryId: row.id, version: 1, sql: 'select 1 as one', parameters: {}, connectionName });
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

  it('lists for a key exactly what the run path lets it run, by each kind of grant', async () => {
    const mine = (names: string[]) => names.filter((n) => n.endsWith(tag)).sort();
    const cases: Array<[Partial<KeyGrants>, string[]]> = [
      [{ connections: ['examples'] }, [PUBLISHED]],
      [{ connections: ['*'] }, [ON_OTHER, PUBLISHED]],
      [{ queries: [PUBLISHED] }, [PUBLISHED]],
      [{ queries: [{ name: ON_OTHER, allow_writes: true }] }, [ON_OTHER]],
      [{ queries: ['*'] }, [ON_OTHER, PUBLISHED]],
      [{ collections: [COLLECTION] }, [ON_OTHER]],
      [{ queries: [UNPUBLISHED] }, []],
      [{}, []],
    ];
    for (const [grants, expected] of cases) {
      const caller = key(grants);
      const listed = mine((await reachableQueries({ store }, caller)).map((r) => r.query.name));
      expect(listed, JSON.stringify(grants)).toEqual(expected.sort());
      const runnable: string[] = [];
      for (const name of [PUBLISHED, UNPUBLISHED, ON_OTHER]) {
        const outcome = await resolveRunnable({ store }, name, undefined, caller).then(() => true, () => false);
        if (outcome) runnable.push(name);
      }
      expect(runnable.sort(), JSON.stringify(grants)).toEqual(listed);
    }
  });

  it('lists nothing for the anonymous caller, whose runs answer like unknown queries', async () => {
    expect(await reachableQueries({ store }, ANONYMOUS)).toEqual([]);
    await expect(resolveRunnable({ store }, PUBLISHED, undefined, ANONYMOUS)).rejects.toMatchObject({ code: 'query_not_found' });
    await expect(resolveRunnable({ store }, PUBLISHED, 1, ANONYMOUS)).rejects.toMatchObject({ code: 'query_not_found' });
    const runnable = await resolveRunnable({ store }, PUBLISHED, undefined, ADMIN);
    expect(runnable.version.version).toBe(1);
  });
});
