import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { recordAudit } from '../../audit/record.ts';
import { buildExampleDataset } from '../../examples/build-dataset.ts';
import type { AppDeps } from '../../deps.ts';
import { connections, examplesState } from '../../store/schema/index.ts';

export const EXAMPLES_CONNECTION = 'examples';
/** Relative to SLUICE_DATA_DIR, so a copied data dir keeps working. */
const DATASET_FILE = 'examples.duckdb';

/** Any fixed number: origins starting together on one store install the examples once. */
const EXAMPLES_LOCK = 7_311_003;

/**
 * Installs the bundled examples on a store that never had them (the
 * `load_examples` change: connection, state and audit entry in one
 * transaction, decided under a lock so origins starting together on a shared
 * store install them once). A store whose examples were removed stays without.
 *
 * The dataset file is local to each origin's data dir, not shared through the
 * store, so every origin builds its own copy when the examples are installed
 * and the file is missing.
 */
export async function ensureExamples(deps: AppDeps): Promise<void> {
  const installed = await deps.store.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${EXAMPLES_LOCK})`);
    const [state] = await tx.select().from(examplesState).where(eq(examplesState.id, 'examples'));
    if (state?.status === 'loaded') return true;
    if (state?.status === 'unloaded') return false;

    const [taken] = await tx.select().from(connections).where(eq(connections.name, EXAMPLES_CONNECTION));
    if (taken && !taken.example) {
      deps.logger.warn(`Examples not loaded: a connection named "${EXAMPLES_CONNECTION}" already exists`);
      return false;
    }
    if (!taken) {
      await tx.insert(connections).values({
        name: EXAMPLES_CONNECTION,
        db: 'duckdb',
        database: DATASET_FILE,
        example: true,
        createdBy: 'system',
      });
    }
    await tx
      .insert(examplesState)
      .values({ status: 'loaded' })
      .onConflictDoUpdate({ target: examplesState.id, set: { status: 'loaded', updatedAt: new Date() } });
    await recordAudit(tx, {
      actor: 'system',
      action: 'load_examples',
      target: 'examples',
      changes: { connection: EXAMPLES_CONNECTION, queries: [], roles: [], keys: [], collections: [] },
    });
    deps.logger.info(`Examples loaded: connection "${EXAMPLES_CONNECTION}" (DuckDB, ${DATASET_FILE})`);
    return true;
  });

  const file = join(deps.env.SLUICE_DATA_DIR, DATASET_FILE);
  if (installed && !existsSync(file)) await buildExampleDataset(file);
}
