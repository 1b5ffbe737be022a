import { readFile, rename, rm, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';

const datasetSql = new URL('./dataset.sql', import.meta.url);

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

function isMain(): boolean {
  const entry = process.argv[1];
  return entry !== undefined && import.meta.url === pathToFileURL(resolve(entry)).href;
}

if (isMain()) {
  const file = process.argv[2];
  if (!file || process.argv.length > 3) {
    console.error('usage: tsx origin/examples/build-dataset.ts <file.duckdb>');
    process.exit(2);
  }
  const started = performance.now();
  try {
    await buildExampleDataset(file);
  } catch (err) {
    console.error(`example dataset build failed: ${(err as Error).message}`);
    process.exit(1);
  }
  const { size } = await stat(file);
  console.log(`built ${file} in ${Math.round(performance.now() - started)} ms (${size} bytes)`);
}
