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
 * the configuration locked so no statement can turn it back on.
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
 * configured ones that statements may open (an export's own pipe).
 */
export async function createInstance(spec: InstanceSpec, writable: string[] = []): Promise<DuckDBInstance> {
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
    paths.push(...writable);
    if (paths.length) await setup.run(`SET allowed_paths = ${list(paths)}`);
    if (directories.length) await setup.run(`SET allowed_directories = ${list(directories)}`);
    await setup.run('SET enable_external_access = false');
    await setup.run('SET lock_configuration = true');
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
  const signature = JSON.stringify([spec.readOnly, spec.threads, spec.memoryLimit, allowedAccess(spec.files)]);
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

/** The configured files as temporary views of a new session. */
export async function createFileViews(connection: DuckDBConnection, files: Record<string, string>): Promise<void> {
  for (const [name, path] of Object.entries(files)) {
    await connection.run(`CREATE OR REPLACE TEMP VIEW ${sqlIdentifier(name)} AS SELECT * FROM ${readerFor(path)}(${sqlString(path)})`);
  }
}
