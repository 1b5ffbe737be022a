import { dirname, resolve } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';

/**
 * DuckDB instances. A database file is opened once per process (DuckDB locks
 * it; two instances on one file in one process would corrupt it), shared by
 * every driver naming it with the same settings, and closed when the last one
 * lets go. An in-memory database belongs to one driver alone.
 *
 * Each instance is locked down once, before any session sees it: external
 * access off except the configured files (or, for globs, their folders), then
 * the configuration locked so no statement can turn it back on. The files'
 * views are the instance's too (`createFileViews`), so that a session is only
 * a connection: everything a statement can change in a session (settings,
 * variables, prepared statements, temporary objects, the random seed,
 * profiling) lives in its connection, and a new one costs less than any
 * statement that would reset it (see duckdb.ts).
 */

export interface InstanceSpec {
  /** Absolute path of the database file, or null for an in-memory database. */
  path: string | null;
  readOnly: boolean;
  threads: number;
  memoryLimit: string;
  /** Files (or globs) readable as tables: view name -> absolute path. */
  files: Record<string, string>;
}

export interface InstanceLease {
  instance: DuckDBInstance;
  release(): void;
  /**
   * After an internal error DuckDB invalidates the instance and refuses every
   * later statement on it: close it now and forget it, so the next lease opens
   * the file afresh.
   */
  discard(): void;
}

const closeQuietly = (instance: DuckDBInstance) => {
  try {
    instance.closeSync();
  } catch {
    // already closed
  }
};

interface Entry {
  signature: string;
  instance: Promise<DuckDBInstance>;
  refs: number;
}

const shared = new Map<string, Entry>();

const sqlString = (text: string) => `'${text.replace(/'/g, "''")}'`;
export const sqlIdentifier = (name: string) => `"${name.replace(/"/g, '""')}"`;

const GLOB = /[*?[{]/;

/** What the lockdown leaves readable: exact files, and the folder above the first wildcard of a glob. */
export function allowedAccess(files: Record<string, string>): { paths: string[]; directories: string[] } {
  const paths = new Set<string>();
  const directories = new Set<string>();
  for (const file of Object.values(files)) {
    const wildcard = file.search(GLOB);
    if (wildcard < 0) paths.add(file);
    else directories.add(`${dirname(`${file.slice(0, wildcard)}x`)}/`);
  }
  return { paths: [...paths], directories: [...directories] };
}

/**
 * A new instance for `spec`, locked down. `writable` names files beyond the
 * configured ones that statements may open (a stream's own pipe), and
 * `writableFolders` folders they may create and fill (a result's chunks).
 */
export async function createInstance(spec: InstanceSpec, writable: string[] = [], writableFolders: string[] = []): Promise<DuckDBInstance> {
  const options: Record<string, string> = {
    threads: String(spec.threads),
    memory_limit: spec.memoryLimit,
  };
  if (spec.path && spec.readOnly) options.access_mode = 'READ_ONLY';
  const instance = await DuckDBInstance.create(spec.path ?? ':memory:', options);
  const setup = await instance.connect();
  try {
    const { paths, directories } = allowedAccess(spec.files);
    const list = (items: string[]) => `[${items.map(sqlString).join(', ')}]`;
    // A folder is named both ways: as a path to create it, as a directory for the files in it.
    paths.push(...writable, ...writableFolders);
    directories.push(...writableFolders.map((folder) => `${folder}/`));
    if (paths.length) await setup.run(`SET allowed_paths = ${list(paths)}`);
    if (directories.length) await setup.run(`SET allowed_directories = ${list(directories)}`);
    await setup.run('SET enable_external_access = false');
    await setup.run('SET lock_configuration = true');
    await createFileViews(setup, spec);
  } catch (error) {
    setup.closeSync();
    instance.closeSync();
    throw error;
  }
  setup.closeSync();
  return instance;
}

/** An instance for `spec`: the shared one for its file, or a new in-memory one. */
export async function leaseInstance(spec: InstanceSpec): Promise<InstanceLease> {
  if (!spec.path) {
    const instance = await createInstance(spec);
    return { instance, release: () => closeQuietly(instance), discard: () => closeQuietly(instance) };
  }
  const key = resolve(spec.path);
  const files = Object.entries(spec.files).sort(([a], [b]) => (a < b ? -1 : 1));
  const signature = JSON.stringify([spec.readOnly, spec.threads, spec.memoryLimit, files]);
  let entry = shared.get(key);
  if (entry && entry.signature !== signature) {
    throw new Error(`The database file ${key} is already open with different settings by another connection`);
  }
  if (!entry) {
    entry = { signature, instance: createInstance(spec), refs: 0 };
    shared.set(key, entry);
    entry.instance.catch(() => shared.delete(key));
  }
  entry.refs++;
  const held = entry;
  const instance = await held.instance.catch((error: unknown) => {
    held.refs--;
    throw error;
  });
  let released = false;
  return {
    instance,
    release: () => {
      if (released) return;
      released = true;
      if (--held.refs > 0) return;
      if (shared.get(key) === held) shared.delete(key);
      closeQuietly(instance);
    },
    discard: () => {
      if (shared.get(key) === held) shared.delete(key);
      closeQuietly(instance);
    },
  };
}

function readerFor(path: string): string {
  const lower = path.toLowerCase().replace(/\.(gz|zst)$/, '');
  if (lower.endsWith('.parquet')) return 'read_parquet';
  if (/\.(json|jsonl|ndjson)$/.test(lower)) return 'read_json_auto';
  return 'read_csv_auto';
}

/** Where the files' views live beside a database file (an in-memory database keeps them in its own `main`). */
export const FILES_CATALOG = 'sluice_files';

const viewsBesideFile = (spec: InstanceSpec) => spec.path !== null && Object.keys(spec.files).length > 0;

/**
 * The configured files as views, bound once per instance. Beside a database
 * file they go to an attached in-memory catalog: the file may be READ_ONLY,
 * and views written into it would stay in the user's database.
 */
async function createFileViews(connection: DuckDBConnection, spec: InstanceSpec): Promise<void> {
  let schema = '';
  if (viewsBesideFile(spec)) {
    await connection.run(`ATTACH ':memory:' AS ${FILES_CATALOG} (READ_WRITE)`);
    schema = `${FILES_CATALOG}.main.`;
  }
  for (const [name, path] of Object.entries(spec.files)) {
    await connection.run(`CREATE VIEW ${schema}${sqlIdentifier(name)} AS SELECT * FROM ${readerFor(path)}(${sqlString(path)})`);
  }
}

/**
 * A new session on an instance of `spec`. Beside a database file, its search
 * path reaches the files' views after the file's own tables (first, so that
 * what a statement creates goes to the file).
 */
export async function connectSession(instance: DuckDBInstance, spec: InstanceSpec): Promise<DuckDBConnection> {
  const connection = await instance.connect();
  if (viewsBesideFile(spec)) {
    try {
      await connection.run(`SET search_path = 'main,${FILES_CATALOG}.main'`);
    } catch (error) {
      connection.closeSync();
      throw error;
    }
  }
  return connection;
}
