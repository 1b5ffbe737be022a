import type { Dialect } from '../../../origin/drivers/types.ts';
import type { GuardCase } from './corpus.ts';

/**
 * Functions with side effects a read-only transaction does not stop
 * (origin/sql/side-effects.ts), and look-alikes that must stay reads: the
 * names as columns, aliases, strings and comments, `set_config(..., true)`.
 * Part of the guard corpus, so the black-box guard test runs them too.
 */
const ALL: Dialect[] = ['postgres', 'mysql', 'duckdb', 'sqlite'];
const PG: Dialect[] = ['postgres'];
const MY: Dialect[] = ['mysql'];

const FILE_READ = 'reads a file on the database server';

export const SIDE_EFFECT_CORPUS: GuardCase[] = [
  // PostgreSQL large objects: a read-only transaction lets every one of these write.
  { sql: "SELECT lo_from_bytea(0, 'hello'::bytea)", dialects: PG, read: false, refusal: 'LO_FROM_BYTEA() writes large objects', writeOps: ['LO_FROM_BYTEA()'] },
  { sql: "SELECT lo_import('/etc/passwd')", dialects: PG, read: false, refusal: `LO_IMPORT() ${FILE_READ}`, writeOps: ['LO_IMPORT()'] },
  { sql: "SELECT pg_catalog.lo_import('/etc/passwd')", dialects: PG, read: false, writeOps: ['LO_IMPORT()'] },
  { sql: 'SELECT "lo_import"(\'/etc/passwd\')', dialects: PG, read: false, writeOps: ['LO_IMPORT()'] },
  { sql: 'SELECT "pg_catalog"."lo_import" (\'/etc/passwd\')', dialects: PG, read: false, writeOps: ['LO_IMPORT()'] },
  { sql: "SELECT LO_IMPORT /* a comment between */ ('/etc/passwd')", dialects: PG, read: false, writeOps: ['LO_IMPORT()'] },
  { sql: "SELECT lo_export(1, '/tmp/sluice-x')", dialects: PG, read: false, refusal: 'writes a file on the database server' },
  { sql: 'SELECT lo_create(0)', dialects: PG, read: false, writeOps: ['LO_CREATE()'] },
  { sql: 'SELECT lo_creat(-1)', dialects: PG, read: false, writeOps: ['LO_CREAT()'] },
  { sql: 'SELECT lo_unlink(oid) FROM pg_largeobject_metadata', dialects: PG, read: false, writeOps: ['LO_UNLINK()'] },
  { sql: "SELECT lo_put(1, 0, 'x')", dialects: PG, read: false, writeOps: ['LO_PUT()'] },
  { sql: "SELECT lowrite(lo_open(1, 131072), 'x')", dialects: PG, read: false, writeOps: ['LOWRITE()'] },
  { sql: 'SELECT lo_truncate(0, 1)', dialects: PG, read: false, writeOps: ['LO_TRUNCATE()'] },

  // DuckDB: what reaches the whole instance past its locked configuration.
  { sql: 'SELECT * FROM enable_logging()', dialects: ['duckdb'], read: false, refusal: "ENABLE_LOGGING() changes the instance's log", writeOps: ['ENABLE_LOGGING()'] },
  { sql: "SELECT write_log('forged line')", dialects: ['duckdb'], read: false, writeOps: ['WRITE_LOG()'] },
  { sql: 'SELECT * FROM truncate_duckdb_logs()', dialects: ['duckdb'], read: false, writeOps: ['TRUNCATE_DUCKDB_LOGS()'] },
  { sql: 'SELECT * FROM enable_peg_parser()', dialects: ['duckdb'], read: false, refusal: 'changes the parser', writeOps: ['ENABLE_PEG_PARSER()'] },
  { sql: 'SELECT * FROM main.checkpoint()', dialects: ['duckdb'], read: false, refusal: 'writes the database file', writeOps: ['CHECKPOINT()'] },
  { sql: 'SELECT * FROM force_checkpoint()', dialects: ['duckdb'], read: false, writeOps: ['FORCE_CHECKPOINT()'] },
  { sql: 'SELECT message FROM duckdb_logs()', dialects: ['duckdb'], read: true },

  // PostgreSQL: notifications, other connections, session settings, locks, sessions, server state, files.
  { sql: "SELECT pg_notify('jobs', 'x')", dialects: PG, read: false, refusal: 'PG_NOTIFY() sends a notification', writeOps: ['PG_NOTIFY()'] },
  { sql: "SELECT * FROM dblink('dbname=test', 'DELETE FROM t') AS r(x text)", dialects: PG, read: false, writeOps: ['DBLINK()'] },
  { sql: "SELECT dblink_exec('dbname=test', 'DROP TABLE t')", dialects: PG, read: false, writeOps: ['DBLINK_EXEC()'] },
  { sql: "SELECT set_config('search_path', 'evil', false)", dialects: PG, read: false, refusal: 'SET_CONFIG() changes a setting for the whole session', writeOps: ['SET_CONFIG()'] },
  { sql: "SELECT set_config('search_path', 'evil', :local)", dialects: PG, read: false, writeOps: ['SET_CONFIG()'] },
  { sql: "SELECT set_config('search_path', 'evil', 1 = 1)", dialects: PG, read: false, writeOps: ['SET_CONFIG()'] },
  { sql: "SELECT set_config('search_path', set_config('a.b', 'c', true), 'true')", dialects: PG, read: false, writeOps: ['SET_CONFIG()'] },
  { sql: 'SELECT pg_advisory_lock(1)', dialects: PG, read: false, refusal: 'takes or releases a lock', writeOps: ['PG_ADVISORY_LOCK()'] },
  { sql: 'SELECT pg_try_advisory_lock(1), pg_advisory_unlock(1)', dialects: PG, read: false, writeOps: ['PG_TRY_ADVISORY_LOCK()', 'PG_ADVISORY_UNLOCK()'] },
  { sql: 'SELECT pg_advisory_xact_lock(1)', dialects: PG, read: false, writeOps: ['PG_ADVISORY_XACT_LOCK()'] },
  { sql: 'SELECT pg_advisory_unlock_all()', dialects: PG, read: false, writeOps: ['PG_ADVISORY_UNLOCK_ALL()'] },
  { sql: 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity', dialects: PG, read: false, refusal: 'acts on another session' },
  { sql: 'SELECT pg_cancel_backend(1)', dialects: PG, read: false, writeOps: ['PG_CANCEL_BACKEND()'] },
  { sql: 'SELECT pg_reload_conf()', dialects: PG, read: false, refusal: 'changes the state of the database server' },
  { sql: 'SELECT pg_rotate_logfile()', dialects: PG, read: false, writeOps: ['PG_ROTATE_LOGFILE()'] },
  { sql: 'SELECT pg_switch_wal()', dialects: PG, read: false, writeOps: ['PG_SWITCH_WAL()'] },
  { sql: "SELECT pg_create_restore_point('x')", dialects: PG, read: false, writeOps: ['PG_CREATE_RESTORE_POINT()'] },
  { sql: 'SELECT pg_promote()', dialects: PG, read: false, writeOps: ['PG_PROMOTE()'] },
  { sql: 'SELECT pg_stat_reset()', dialects: PG, read: false, writeOps: ['PG_STAT_RESET()'] },
  { sql: "SELECT pg_file_write('/tmp/sluice-x', 'y', false)", dialects: PG, read: false, writeOps: ['PG_FILE_WRITE()'] },
  { sql: "SELECT pg_read_file('/etc/passwd')", dialects: PG, read: false, refusal: `PG_READ_FILE() ${FILE_READ}` },
  { sql: "SELECT pg_read_binary_file('/etc/passwd')", dialects: PG, read: false, writeOps: ['PG_READ_BINARY_FILE()'] },

  // Wherever the call hides, and whatever else the statement does.
  { sql: "WITH x AS (SELECT lo_import('/etc/passwd') AS o) SELECT o FROM x", dialects: PG, read: false, writeOps: ['LO_IMPORT()'] },
  { sql: 'SELECT 1 WHERE 1 IN (SELECT 1 FROM (SELECT pg_advisory_lock(1)) s)', dialects: PG, read: false, writeOps: ['PG_ADVISORY_LOCK()'] },
  { sql: "EXPLAIN ANALYZE SELECT pg_notify('jobs', 'x')", dialects: PG, read: false, writeOps: ['PG_NOTIFY()'] },
  { sql: "INSERT INTO t SELECT lo_import('/etc/passwd')", dialects: PG, read: false, writeOps: ['INSERT', 'LO_IMPORT()'] },

  // MySQL/MariaDB: user locks outlive the transaction; LOAD_FILE reads the server's files.
  { sql: "SELECT GET_LOCK('sluice', 0)", dialects: MY, read: false, refusal: 'GET_LOCK() takes or releases a lock', writeOps: ['GET_LOCK()'] },
  { sql: "SELECT get_lock('sluice', 10) AS l", dialects: MY, read: false, writeOps: ['GET_LOCK()'] },
  { sql: "SELECT `get_lock`('sluice', 0)", dialects: MY, read: false, writeOps: ['GET_LOCK()'] },
  { sql: "SELECT RELEASE_LOCK('sluice')", dialects: MY, read: false, writeOps: ['RELEASE_LOCK()'] },
  { sql: 'SELECT RELEASE_ALL_LOCKS()', dialects: MY, read: false, writeOps: ['RELEASE_ALL_LOCKS()'] },
  { sql: "SELECT LOAD_FILE('/etc/passwd')", dialects: MY, read: false, refusal: `LOAD_FILE() ${FILE_READ}`, writeOps: ['LOAD_FILE()'] },
  // A call that is code only when the server reads backslashes differently.
  { sql: "SELECT 'a\\' , GET_LOCK('x', 0) -- '", dialects: MY, read: false, refusal: 'NO_BACKSLASH_ESCAPES' },

  // SQLite: refused by better-sqlite3 as well, refused here whatever the build.
  { sql: "SELECT load_extension('/tmp/x.so')", dialects: ['sqlite'], read: false, writeOps: ['LOAD_EXTENSION()'] },
  { sql: "SELECT [load_extension]('/tmp/x.so')", dialects: ['sqlite'], read: false, writeOps: ['LOAD_EXTENSION()'] },

  // Look-alikes: the names as columns, aliases, in strings and comments, or not called.
  { sql: 'SELECT lo_import, get_lock, load_extension FROM (SELECT 1 AS lo_import, 2 AS get_lock, 3 AS load_extension) s', dialects: ALL, read: true },
  { sql: "SELECT 'lo_import(''/etc/passwd'')' AS s, 'GET_LOCK(1)' AS t", dialects: ALL, read: true },
  { sql: "SELECT 1 AS x -- lo_import('/etc/passwd')", dialects: ALL, read: true },
  { sql: "SELECT 1 AS x /* get_lock('a', 0), load_extension('x') */", dialects: ALL, read: true },
  { sql: 'SELECT n FROM generate_series(1, 2) AS lo_import(n)', dialects: ['postgres', 'duckdb'], read: true },
  { sql: "SELECT $$ pg_notify('jobs', 'x') $$ AS body", dialects: ['postgres', 'duckdb'], read: true },
  { sql: "SELECT set_config('sluice.guard_probe', 'y', true) AS v", dialects: PG, read: true },
  { sql: "SELECT set_config('sluice.guard_probe', 'y', TRUE) AS v", dialects: PG, read: true },
  { sql: 'SELECT lo_get(oid) FROM pg_largeobject_metadata LIMIT 0', dialects: PG, read: true },
  // Assigns a transaction id and nothing else: PostgreSQL allows it in a read-only transaction.
  { sql: 'SELECT txid_current() > 0 AS assigned', dialects: PG, read: true },
  { sql: "SELECT IS_USED_LOCK('sluice') AS used, IS_FREE_LOCK('sluice') AS free", dialects: MY, read: true },
  { sql: 'SELECT SLEEP(0) AS s, BENCHMARK(10, 1) AS b', dialects: MY, read: true },
  // SQL that runs SQL: the text is a value the guard cannot check.
  { sql: "SELECT * FROM query('SELECT 42 AS x')", dialects: ['duckdb'], read: false, writeOps: ['QUERY()'] },
  // The names of another engine's functions mean nothing here (and do not exist).
  { sql: "SELECT readfile('/etc/hostname')", dialects: ['sqlite'], read: true, runs: false },
];
