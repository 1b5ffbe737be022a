import { readFile, rename, rm } from 'node:fs/promises';
import { DuckDBInstance } from '@duckdb/node-api';
import { projectPath } from '../paths.ts';

const datasetSql = projectPath('origin/examples/dataset.sql');

/** DuckDB keeps uncheckpointed changes in a write-ahead log beside the file. */
const walOf = (file: string) => `${file}.wal`;

/**
 * Builds the bundled example database at `file` from dataset.sql, in one
 * transaction. The database is built under `file + '.tmp'` and renamed over
 * `file` only once committed, checkpointed and closed, so an interrupted build
 * leaves the previous file (or none), never half of one. On return no handle is
 * open: another DuckDBInstance in this process may open the file, read-only too.
 */
export async function buildExampleDataset(file: string): Promise<void> {
  const sql = await readFile(datasetSql, 'utf8');
  const tmp = `${file}.tmp`;
  await removeDatabase(tmp);

  const instance = await DuckDBInstance.create(tmp);
  try {
    const connection = await instance.connect();
    try {
      await connection.run('BEGIN TRANSACTION');
      try {
        await connection.run(sql);
        await connection.run('COMMIT');
      } catch (err) {
        await connection.run('ROLLBACK').catch(() => {});
        throw err;
      }
      // Fold the log into the file so the rename moves a complete database.
      await connection.run('CHECKPOINT');
    } finally {
      connection.closeSync();
    }
  } catch (err) {
    instance.closeSync();
    await removeDatabase(tmp);
    throw err;
  }
  instance.closeSync();

  // A log left by an older database at `file` would be replayed into the new one.
  await rm(walOf(file), { force: true });
  await rename(tmp, file);
}

async function removeDatabase(file: string): Promise<void> {
  await rm(file, { force: true });
  await rm(walOf(file), { force: true });
}
