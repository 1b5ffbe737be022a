import { and, eq, inArray } from 'drizzle-orm';
import type { Caller } from '../../access/caller.ts';
import { recordAudit } from '../../audit/record.ts';
import { DEFAULT_WORKSPACE } from '../../access/administration.ts';
import { setAuditVia } from '../../audit/via.ts';
import type { AppDeps } from '../../deps.ts';
import { SluiceError } from '../../errors.ts';
import { storeInTransaction } from '../../store/open.ts';
import { administrators, apiKeys, connections, queries, roles } from '../../store/schema/index.ts';
import { connectionCache } from '../connections/cache.ts';
import { assertNotOpen, createKey } from '../keys/create.ts';
import { createQuery } from '../queries/create.ts';
import { forgetQueryDefinitions } from '../queries/definition-cache.ts';
import { createRole } from '../roles/create.ts';
import { ensureDatasetFile, insertDatasetConnection, takeExamplesLock } from './ensure.ts';
import { type ExamplesStatus, examplesStatus, setExamplesState, takenByOthers } from './status.ts';
import { EXAMPLES_CONNECTION, TOUR_COLLECTIONS, TOUR_KEYS, TOUR_QUERIES, TOUR_ROLES } from './tour.ts';
import { inTurn } from './turns.ts';

/** The answer to an install: the status after it, and the secret of each key it made, shown this once. */
export interface ExamplesInstall extends ExamplesStatus {
  key_secrets: Record<string, string>;
}

interface Conflict {
  kind: 'connection' | 'query' | 'collection' | 'role' | 'api_key' | 'administrator';
  name: string;
}

/**
 * Installs the tour (tour.ts): the dataset's connection, the queries, the
 * role and one key per collection, each marked `example`. Idempotent: what
 * exists is kept, what is missing is made, so a second call changes nothing
 * and shows no secret, and a call after an interrupted install (`partial`)
 * completes it. A name the tour uses that an object of the operator's own
 * holds refuses the whole install first, 409 `examples_conflict` listing
 * them, with nothing changed. Each object is made by its own verb in a
 * transaction of its own, flagged `example` in that same transaction and
 * audited `via: examples`; the state says `partial` from the first change
 * to the `load_examples` entry that ends the install.
 */
export function installExamples(deps: AppDeps, actor: Caller): Promise<ExamplesInstall> {
  // The tour's keys would turn an open server's authentication on, leaving nobody able to manage it.
  assertNotOpen(actor);
  return inTurn(() => install(deps, actor));
}

async function install(deps: AppDeps, actor: Caller): Promise<ExamplesInstall> {
  const db = deps.store.db;
  const conflicts = await findConflicts(deps);
  if (conflicts.length > 0) {
    const named = conflicts.map((c) => `${c.kind} "${c.name}"`).join(', ');
    throw new SluiceError('examples_conflict', `The examples use names already taken by objects of your own: ${named}. Rename or remove them, then install again.`, { conflicts });
  }

  const before = await examplesStatus(db);
  const missing = {
    connection: before.connection === null,
    queries: TOUR_QUERIES.filter((q) => !before.queries.includes(q.name)),
    roles: TOUR_ROLES.filter((r) => !before.roles.includes(r.name)),
    keys: TOUR_KEYS.filter((k) => !before.keys.includes(k.name)),
  };
  const anyMissing = missing.connection || missing.queries.length + missing.roles.length + missing.keys.length > 0;
  if (!anyMissing && before.loaded) {
    await ensureDatasetFile(deps);
    return { ...before, key_secrets: {} };
  }

  const keySecrets: Record<string, string> = {};
  try {
    await db.transaction(async (tx) => {
      await takeExamplesLock(tx);
      await setExamplesState(tx, 'partial');
    });
    if (missing.connection) await step(deps, async (d) => insertDatasetConnection(d.store.db, actor.name));
    await ensureDatasetFile(deps);
    for (const query of missing.queries) {
      await step(deps, async (d) => {
        await createQuery(d, actor, query, 'default');
        await d.store.db.update(queries).set({ example: true }).where(eq(queries.name, query.name));
      });
    }
    for (const role of missing.roles) {
      await step(deps, async (d) => {
        await createRole(d, actor, role);
        await d.store.db.update(roles).set({ example: true }).where(eq(roles.name, role.name));
      });
    }
    // The keys last and together: a secret is shown only by the answer of the install that made its key.
    const made: Record<string, string> = {};
    await step(deps, async (d) => {
      for (const key of missing.keys) {
        made[key.name] = (await createKey(d, actor, key)).key.secret;
        await d.store.db.update(apiKeys).set({ example: true }).where(eq(apiKeys.name, key.name));
      }
    });
    Object.assign(keySecrets, made);
  } finally {
    // The verbs invalidated names before their commits, when another request could still cache the old rows.
    connectionCache(deps.store).reset();
    forgetQueryDefinitions(deps.store);
  }

  const after = await db.transaction(async (tx) => {
    await takeExamplesLock(tx);
    await setExamplesState(tx, 'loaded');
    const status = await examplesStatus(tx);
    await recordAudit(tx, {
      actor: actor.name,
      action: 'load_examples',
      target: 'examples',
      workspace: DEFAULT_WORKSPACE,
      changes: {
        connection: status.connection,
        queries: status.queries,
        roles: status.roles,
        keys: status.keys,
        collections: status.collections,
        created: {
          connection: missing.connection,
          queries: missing.queries.map((q) => q.name),
          roles: missing.roles.map((r) => r.name),
          keys: missing.keys.map((k) => k.name),
        },
        completed_partial: before.partial,
      },
    });
    return status;
  });
  return { ...after, key_secrets: keySecrets };
}

/** One object of the tour: its verb on a transaction of its own, whose audit entries say `via: examples`. */
async function step(deps: AppDeps, work: (txDeps: AppDeps) => Promise<void>): Promise<void> {
  await deps.store.db.transaction(async (tx) => {
    await setAuditVia(tx, 'examples');
    await work({ ...deps, store: storeInTransaction(deps.store, tx) });
  });
}

/** Every name the tour would use that the operator's own objects hold, and collections holding queries of theirs. */
async function findConflicts(deps: AppDeps): Promise<Conflict[]> {
  const db = deps.store.db;
  const keyNames = TOUR_KEYS.map((k) => k.name);
  const admins = await db.select({ name: administrators.name }).from(administrators).where(inArray(administrators.name, keyNames));
  const collected = await db
    .select({ collection: queries.collection })
    .from(queries)
    .where(and(inArray(queries.collection, TOUR_COLLECTIONS), eq(queries.example, false)));
  const tag = (kind: Conflict['kind']) => (name: string) => ({ kind, name });
  return [
    ...(await takenByOthers(db, connections, [EXAMPLES_CONNECTION])).map(tag('connection')),
    ...(await takenByOthers(db, queries, TOUR_QUERIES.map((q) => q.name))).map(tag('query')),
    ...[...new Set(collected.map((row) => row.collection!))].map(tag('collection')),
    ...(await takenByOthers(db, roles, TOUR_ROLES.map((r) => r.name))).map(tag('role')),
    ...(await takenByOthers(db, apiKeys, keyNames)).map(tag('api_key')),
    ...admins.map((row) => tag('administrator')(row.name)),
  ];
}
