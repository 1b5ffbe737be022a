import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { ne } from 'drizzle-orm';
import { type PlaceRules, allowedPlace, realLocation } from '../../allowed-places.ts';
import type { Env } from '../../env.ts';
import { SluiceError, badRequest } from '../../errors.ts';
import type { StoreDb } from '../../store/open.ts';
import { connections } from '../../store/schema/index.ts';
import type { ConnectionFields } from './fields.ts';

/**
 * The local files a connection names: a SQLite or DuckDB `database`, DuckDB
 * `options.files`, the file of an H2 URL (`jdbc:h2:/path`, `jdbc:h2:file:`,
 * `jdbc:h2:~/x`, ...; also `jdbc:sqlite:` and `jdbc:duckdb:` URLs of a
 * generic `jdbc` connection) and a named `options.driver_jar`. Each must lie
 * inside SLUICE_FILE_DIRS, never the home folder or the data directory (the
 * rules of SLUICE_EXPORT_DIRS, allowed-places.ts), and no connection of
 * another workspace may use the same file (a jar excepted). Checked when a connection is
 * created, changed, applied from a configuration file or probed with unsaved
 * fields; the examples connection the server makes itself is not.
 */

type FileFields = Pick<ConnectionFields, 'db' | 'database' | 'options'>;

/** One file a connection names: the field that names it and where the driver opens it. */
export interface NamedFile {
  field: string;
  path: string;
}

/** DuckDB opens these remotely (MotherDuck, object stores, HTTP): no local file. */
const REMOTE_DUCKDB = /^(md|motherduck):|^(s3|s3a|s3n|gs|gcs|r2|az|azure|abfss|hf|https?):\/\//i;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
/** H2 URL forms with no local file: in memory, or a server over the network. */
const H2_NO_FILE = /^(mem|tcp|ssl|memfs|memlzf|niomemfs|niomemlzf):/i;
/** H2 file-system prefixes in front of the path (`split:` may carry a size: `split:28:`). */
const H2_PREFIX = /^(file|nio|niomapped|async|retry|rec|split(?::\d+)?|zip):/i;

/** A driver jar is code, not data: it must be inside SLUICE_FILE_DIRS, but workspaces may share one. */
const JAR = 'options.driver_jar';

const refusal = (field: string) => (problem: string) =>
  new SluiceError('file_not_allowed', `${field} ${problem}`, { errors: { [field]: problem } });

/** A path as the engine opens it: relative ones from the origin's working folder. */
const fromCwd = (path: string) => (isAbsolute(path) ? path : resolve(path));

/** The database file of a SQLite or DuckDB connection, as `driverSettings` resolves it (relative: from the data directory). */
function databaseFile(fields: FileFields, dataDir: string): NamedFile[] {
  const database = fields.database;
  if (database === null || database === '' || database === ':memory:') return [];
  if (fields.db === 'duckdb' && REMOTE_DUCKDB.test(database)) return [];
  if (SCHEME.test(database)) {
    const remote = fields.db === 'duckdb' ? ', or a remote md:, s3://, gs://, r2://, https:// ... URL' : '';
    throw refusal('database')(`must be a file path${remote}, not ${JSON.stringify(database.slice(0, 40))}`);
  }
  return [{ field: 'database', path: isAbsolute(database) ? database : resolve(dataDir, database) }];
}

/** The file of a JDBC URL naming an H2, SQLite or DuckDB database; none for an in-memory or network one. */
export function jdbcUrlFile(url: string): string | null {
  const h2 = /^jdbc:h2:(.*)$/is.exec(url);
  if (h2) {
    let path = h2[1]!.split(';')[0]!;
    if (H2_NO_FILE.test(path)) return null;
    for (let prefix = H2_PREFIX.exec(path); prefix; prefix = H2_PREFIX.exec(path)) {
      path = path.slice(prefix[0].length);
      if (prefix[1]!.toLowerCase() === 'zip') path = path.split('!')[0]!;
      if (H2_NO_FILE.test(path)) return null;
    }
    if (path === '~' || path.startsWith('~/')) path = homedir() + path.slice(1);
    return fromCwd(path);
  }
  const file = /^jdbc:(sqlite|duckdb):(.*)$/is.exec(url);
  if (!file) return null;
  const path = file[2]!.split('?')[0]!.replace(/^file:/i, '');
  return path === '' || path === ':memory:' || path.startsWith(':memory:') ? null : fromCwd(path);
}

/**
 * H2 URL settings that act on the origin's machine when the connection
 * opens: INIT runs SQL (RUNSCRIPT FROM a file, CREATE ALIAS with Java code),
 * DATABASE_EVENT_LISTENER loads a class, AUTO_SERVER opens a TCP port.
 */
const H2_REFUSED_SETTINGS = ['INIT', 'DATABASE_EVENT_LISTENER', 'AUTO_SERVER', 'AUTO_SERVER_PORT'];

/** 400 when an H2 URL sets one of H2_REFUSED_SETTINGS; the URL (which may hold a password) is never echoed. */
export function assertH2Settings(url: string): void {
  if (!/^jdbc:h2:/i.test(url)) return;
  const keys = url.split(';').slice(1).map((part) => part.split('=')[0]!.trim().toUpperCase());
  const refused = H2_REFUSED_SETTINGS.filter((key) => keys.includes(key));
  if (refused.length === 0) return;
  const problem = `sets ${refused.join(', ')}, which would run SQL or code, or open a port, on the origin's machine when the connection opens: remove it`;
  throw badRequest(`options.jdbc_url ${problem}`, { errors: { 'options.jdbc_url': problem } });
}

/** Every local file `fields` name, where the driver opens it; a form naming no plain path is refused. */
export function namedFiles(fields: FileFields, dataDir: string): NamedFile[] {
  const options = fields.options ?? {};
  const files: NamedFile[] = [];
  if (fields.db === 'sqlite' || fields.db === 'duckdb') files.push(...databaseFile(fields, dataDir));
  if (fields.db === 'duckdb' && options.files && typeof options.files === 'object') {
    for (const [name, path] of Object.entries(options.files as Record<string, unknown>)) files.push({ field: `options.files.${name}`, path: fromCwd(String(path)) });
  }
  if (fields.db === 'h2' || fields.db === 'jdbc') {
    const url = typeof options.jdbc_url === 'string' ? jdbcUrlFile(options.jdbc_url) : null;
    if (url !== null) files.push({ field: 'options.jdbc_url', path: url });
    if (typeof options.driver_jar === 'string' && options.driver_jar !== '') files.push({ field: JAR, path: fromCwd(options.driver_jar) });
  }
  return files;
}

export const fileRules = (env: Pick<Env, 'SLUICE_FILE_DIRS' | 'SLUICE_DATA_DIR'>): PlaceRules => ({
  allowed: env.SLUICE_FILE_DIRS,
  setting: 'SLUICE_FILE_DIRS',
  allowedName: 'file folders',
  dataDir: env.SLUICE_DATA_DIR,
  home: homedir(),
});

/** Real paths of the files of every connection outside `workspace`. */
async function filesOfOtherWorkspaces(db: StoreDb, workspace: string, dataDir: string): Promise<Set<string>> {
  const rows = await db
    .select({ db: connections.db, database: connections.database, options: connections.options })
    .from(connections)
    .where(ne(connections.workspace, workspace));
  const taken = new Set<string>();
  for (const row of rows) {
    try {
      for (const file of namedFiles(row as FileFields, dataDir)) if (file.field !== JAR) taken.add(realLocation(file.path));
    } catch {
      // A stored connection naming no plain path opens no file this one could share.
    }
  }
  return taken;
}

/**
 * Refuses the files of `fields` that lie outside SLUICE_FILE_DIRS (400
 * `file_not_allowed`) or that a connection of another workspace uses (409
 * `connection_file_taken`, naming no connection). `before`: on a change,
 * only files the change names anew are checked, so a connection stored
 * before the rule keeps working until its files change.
 */
export async function assertConnectionFiles(
  db: StoreDb,
  env: Pick<Env, 'SLUICE_FILE_DIRS' | 'SLUICE_DATA_DIR'>,
  fields: FileFields,
  workspace: string,
  before?: FileFields,
): Promise<void> {
  const url = fields.options?.jdbc_url;
  if (typeof url === 'string' && url !== before?.options?.jdbc_url) assertH2Settings(url);
  const kept = new Set(before ? namedFilesOrNone(before, env.SLUICE_DATA_DIR).map((file) => `${file.field}\n${file.path}`) : []);
  const named = namedFiles(fields, env.SLUICE_DATA_DIR).filter((file) => !kept.has(`${file.field}\n${file.path}`));
  if (named.length === 0) return;
  const places = named.map((file) => ({ ...file, place: allowedPlace(file.path, fileRules(env), 'file', refusal(file.field)) }));
  const taken = await filesOfOtherWorkspaces(db, workspace, env.SLUICE_DATA_DIR);
  const shared = places.find((file) => file.field !== JAR && taken.has(file.place));
  if (shared) {
    throw new SluiceError('connection_file_taken', `${shared.field} is the file ${shared.place}, which a connection of another workspace uses`, {
      errors: { [shared.field]: 'used by a connection of another workspace' },
    });
  }
}

function namedFilesOrNone(fields: FileFields, dataDir: string): NamedFile[] {
  try {
    return namedFiles(fields, dataDir);
  } catch {
    return [];
  }
}
