import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { recordAudit } from '../../audit/record.ts';
import { buildExampleDataset } from '../../examples/build-dataset.ts';
import type { AppDeps } from '../../http/context.ts';
import { connections, examplesState } from '../../store/schema/index.ts';

export const EXAMPLES_CONNECTION = 'examples';
/** Relative to SLUICE_DATA_DIR, so a copied data dir keeps working. */
const DATASET_FILE = 'examples.duckdb';

/**
 * Installs the bundled examples on a store that never had them, and completes
 * an interrupted install. A store whose examples were removed stays without.
 * The install is the `load_examples` change: connection and state in one
 * transaction with its audit entry; the dataset file is built before it.
 */
export async function ensureExamples(deps: AppDeps): Promise<void> {
  const { db } = deps.store;
  const [state] = await db.select().from(examplesState).where(eq(examplesState.id, 'examples'));
  if (state && state.status !== 'partial') return;

  const [taken] = await db.select().from(connections).where(eq(connections.name, EXAMPLES_CONNECTION));
  if (taken && !taken.example) {
    deps.logger.warn(`Examples not loaded: a connection named "${EXAMPLES_CONNECTION}" already exists`);
    return;
  }

  await db.insert(examplesState).values({ status: 'partial' }).onConflictDoNothing();
  await buildExampleDataset(join(deps.env.SLUICE_DATA_DIR, DATASET_FILE));

  await db.transaction(async (tx) => {
    if (!taken) {
      await tx.insert(connections).values({
        name: EXAMPLES_CONNECTION,
        db: 'duckdb',
        database: DATASET_FILE,
        example: true,
        createdBy: 'system',
      });
    }
    await tx.update(examplesState).set({ status: 'loaded', updatedAt: new Date() }).where(eq(examplesState.id, 'examples'));
    await recordAudit(tx, {
      actor: 'system',
      action: 'load_examples',
      target: 'examples',
      changes: { connection: EXAMPLES_CONNECTION, queries: [], roles: [], keys: [], collections: [] },
    });
  });
  deps.logger.info(`Examples loaded: connection "${EXAMPLES_CONNECTION}" (DuckDB, ${DATASET_FILE})`);
}
