import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { recordAudit } from '../../audit/record.ts';
import { DEFAULT_WORKSPACE } from '../../access/administration.ts';
import { buildExampleDataset } from '../../examples/build-dataset.ts';
import type { AppDeps } from '../../deps.ts';
import type { StoreDb } from '../../store/open.ts';
import { connections } from '../../store/schema/index.ts';
import { examplesStateOf, setExamplesState } from './status.ts';
import { EXAMPLES_CONNECTION } from './tour.ts';

export { EXAMPLES_CONNECTION } from './tour.ts';

/** Relative to SLUICE_DATA_DIR, so a copied data dir keeps working. */
const DATASET_FILE = 'examples.duckdb';

/** Any fixed number: origins starting together on one store install the examples once; installs and removals take turns. */
export const EXAMPLES_LOCK = 7_311_003;

export const takeExamplesLock = (tx: StoreDb) => tx.execute(sql`select pg_advisory_xact_lock(${EXAMPLES_LOCK})`);

/** The bundled dataset's connection, marked `example` (inside the caller's transaction). */
export async function insertDatasetConnection(tx: StoreDb, createdBy: string): Promise<void> {
  await tx.insert(connections).values({ name: EXAMPLES_CONNECTION, db: 'duckdb', database: DATASET_FILE, example: true, createdBy });
}

/** Builds this origin's copy of the dataset file when it is missing (the file is local to each data dir). */
export async function ensureDatasetFile(deps: AppDeps): Promise<void> {
  const file = join(deps.env.SLUICE_DATA_DIR, DATASET_FILE);
  if (existsSync(file)) return;
  deps.logger.info(`Building the examples dataset in ${file}`);
  await buildExampleDataset(file);
}

/**
 * At startup (SLUICE_EXAMPLES): installs the bundled dataset's connection on
 * a store that never had examples (the `load_examples` change: connection,
 * state `dataset` and audit entry in one transaction, decided under a lock
 * so origins starting together on a shared store install it once). A store
 * whose examples were removed stays without. The rest of the tour (queries,
 * a role, keys) waits for POST /api/v1/examples: its keys would turn an
 * open server's authentication on.
 *
 * The dataset file is local to each origin's data dir, not shared through the
 * store, so every origin builds its own copy when the examples are installed
 * and the file is missing.
 */
export async function ensureExamples(deps: AppDeps): Promise<void> {
  const installed = await deps.store.db.transaction(async (tx) => {
    await takeExamplesLock(tx);
    const state = await examplesStateOf(tx);
    if (state === 'unloaded') return false;
    if (state !== null) return true;

    const [taken] = await tx.select().from(connections).where(eq(connections.name, EXAMPLES_CONNECTION));
    if (taken && !taken.example) {
      deps.logger.warn(`Examples not loaded: a connection named "${EXAMPLES_CONNECTION}" already exists`);
      return false;
    }
    if (!taken) await insertDatasetConnection(tx, 'system');
    await setExamplesState(tx, 'dataset');
    await recordAudit(tx, {
      actor: 'system',
      action: 'load_examples',
      target: 'examples',
      workspace: DEFAULT_WORKSPACE,
      changes: { connection: EXAMPLES_CONNECTION, queries: [], roles: [], keys: [], collections: [] },
    });
    return true;
  });
  if (!installed) return;
  await ensureDatasetFile(deps);
  deps.logger.info(`Examples ready: connection "${EXAMPLES_CONNECTION}" (DuckDB, ${DATASET_FILE}); SLUICE_EXAMPLES=false starts without them`);
}
