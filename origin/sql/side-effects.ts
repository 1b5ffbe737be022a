import type { Engine } from './engine.ts';
import { h2Calls } from './h2.ts';
import { caseless, readName } from './identifiers.ts';
import { closingParen, isPunct } from './statements.ts';
import type { Token } from './tokenizer.ts';

/**
 * Functions a read statement may call that act where a read-only transaction
 * does not reach: large objects (PostgreSQL lets a read-only transaction
 * write them), notifications, session settings, locks, other sessions, server
 * files and server state. A call to one makes the statement a write: refused
 * while writes are off, allowed as its own write operation (`NAME()`) where
 * writes are. What the database already refuses in a read-only transaction
 * (`nextval`, `setval`, MariaDB sequences) is left to it.
 */
const LARGE_OBJECT = 'writes large objects';
const FILE_WRITE = 'writes a file on the database server';
const FILE_READ = 'reads a file on the database server';
const LOCK = 'takes or releases a lock other sessions wait on';
const SERVER = 'changes the state of the database server';
const OTHER_SESSION = 'acts on another session';
const RUNS_SQL = 'runs SQL given as text, which the guard cannot see';
const READS_ANY_TABLE = 'reads tables given as values, which the guard cannot see';
const SERVER_FILES = 'lists or reads files on the database server';

const POSTGRES = new Map<string, string>([
  ...names(LARGE_OBJECT, 'lo_creat lo_create lo_from_bytea lo_unlink lo_put lowrite lo_truncate lo_truncate64'),
  ['LO_IMPORT', `${FILE_READ} into a new large object`],
  ['LO_EXPORT', FILE_WRITE],
  ['PG_NOTIFY', 'sends a notification to other sessions'],
  ['DBLINK', 'runs SQL over a connection of its own, outside the read-only transaction'],
  // SQL that runs SQL: the text is a value, so neither this guard nor allowed_tables sees what it does.
  ...names(RUNS_SQL, 'query_to_xml query_to_xmlschema query_to_xml_and_xmlschema cursor_to_xml cursor_to_xmlschema ts_stat ts_rewrite'),
  ...names(READS_ANY_TABLE, 'table_to_xml table_to_xmlschema table_to_xml_and_xmlschema'),
  ...names(READS_ANY_TABLE, 'schema_to_xml schema_to_xmlschema schema_to_xml_and_xmlschema'),
  ...names(READS_ANY_TABLE, 'database_to_xml database_to_xmlschema database_to_xml_and_xmlschema'),
  // Transaction-scoped locks too: a read never needs one (PostgreSQL refuses FOR UPDATE in a
  // read-only transaction), and while it runs it can stall whoever coordinates through that key.
  ...names(LOCK, 'pg_advisory_lock pg_advisory_lock_shared pg_try_advisory_lock pg_try_advisory_lock_shared'),
  ...names(LOCK, 'pg_advisory_xact_lock pg_advisory_xact_lock_shared pg_try_advisory_xact_lock pg_try_advisory_xact_lock_shared'),
  ...names(LOCK, 'pg_advisory_unlock pg_advisory_unlock_shared pg_advisory_unlock_all'),
  ...names(OTHER_SESSION, 'pg_cancel_backend pg_terminate_backend pg_log_backend_memory_contexts'),
  ...names(SERVER, 'pg_reload_conf pg_rotate_logfile pg_rotate_logfile_old pg_switch_wal pg_switch_xlog'),
  ...names(SERVER, 'pg_create_restore_point pg_promote pg_wal_replay_pause pg_wal_replay_resume'),
  ...names(SERVER, 'pg_xlog_replay_pause pg_xlog_replay_resume pg_backup_start pg_backup_stop pg_start_backup pg_stop_backup'),
  ...names(SERVER, 'pg_create_physical_replication_slot pg_create_logical_replication_slot pg_drop_replication_slot'),
  ...names(SERVER, 'pg_copy_physical_replication_slot pg_copy_logical_replication_slot pg_replication_slot_advance'),
  ...names(SERVER, 'pg_logical_slot_get_changes pg_logical_slot_get_binary_changes pg_logical_emit_message'),
  ...names(SERVER, 'pg_replication_origin_create pg_replication_origin_drop pg_replication_origin_advance'),
  ...names(SERVER, 'pg_replication_origin_session_setup pg_replication_origin_session_reset'),
  ...names(SERVER, 'pg_replication_origin_xact_setup pg_replication_origin_xact_reset pg_import_system_collations'),
  ...names(SERVER, 'pg_stat_reset pg_stat_reset_shared pg_stat_reset_single_table_counters pg_stat_reset_slru'),
  ...names(SERVER, 'pg_stat_reset_single_function_counters pg_stat_reset_replication_slot pg_stat_reset_subscription_stats'),
  ...names(SERVER, 'pg_stat_statements_reset'),
  // adminpack.
  ...names(FILE_WRITE, 'pg_file_write pg_file_rename pg_file_unlink pg_file_sync'),
  // File contents are no read of the database: COPY FROM a file is refused as COPY, these alike.
  ...names(FILE_READ, 'pg_read_file pg_read_binary_file pg_file_read'),
  ...names(SERVER_FILES, 'pg_ls_dir pg_stat_file pg_ls_logdir pg_ls_waldir pg_ls_tmpdir pg_ls_archive_statusdir pg_ls_logicalsnapdir'),
  ...names(SERVER_FILES, 'pg_ls_logicalmapdir pg_ls_replslotdir pg_ls_summariesdir pg_logdir_ls pg_current_logfile pg_file_length'),
]);

const MYSQL = new Map<string, string>([
  ...names(LOCK, 'get_lock release_lock release_all_locks'),
  ...names(LOCK, 'service_get_read_locks service_get_write_locks service_release_locks'),
  ['LOAD_FILE', FILE_READ],
]);

/**
 * The instance is READ_ONLY with external access off and its configuration
 * locked, and each statement has a connection of its own; these still reach
 * the whole instance: logging on makes `duckdb_logs()` show every caller's
 * statements to any other, and the parser and checkpoints are the instance's.
 */
const DUCKDB = new Map<string, string>([
  ...names("changes the instance's log, which every connection reads", 'enable_logging disable_logging truncate_duckdb_logs write_log'),
  ...names('changes the parser every connection of the instance uses', 'enable_peg_parser disable_peg_parser'),
  ...names('writes the database file', 'checkpoint force_checkpoint'),
  ...names(RUNS_SQL, 'query'),
  ...names(READS_ANY_TABLE, 'query_table'),
]);

/** Refused by better-sqlite3 itself today; a build that allowed it would run native code. */
const SQLITE = new Map<string, string>([['LOAD_EXTENSION', 'loads native code into the database']]);

/**
 * Table functions that reach past the server's own tables (files, URLs,
 * other servers, programs): `readonly` stops writes through them, not what
 * they read or the requests they send.
 */
const CLICKHOUSE = new Map<string, string>([
  ...names(FILE_READ, 'file'),
  ...names('runs a program on the database server', 'executable'),
  ...names('sends a request from the database server', 'url urlcluster s3 s3cluster gcs azureblobstorage hdfs'),
  ...names('reads another server through a connection of its own', 'remote remotesecure cluster clusterallreplicas mysql postgresql mongodb redis jdbc odbc sqlite'),
]);

/**
 * A JDBC driver of unknown engine: PostgreSQL's list and H2's worst functions.
 * H2 itself (engine `h2`) runs only the functions of its allowlist (h2.ts).
 */
const JDBC = new Map<string, string>([
  ...POSTGRES,
  ...names(FILE_READ, 'file_read csvread'),
  ...names(FILE_WRITE, 'file_write csvwrite'),
  ...names('links another database through a connection of its own', 'link_schema'),
  ...names(SERVER, 'cancel_session abort_session'),
]);

const BY_ENGINE: Record<Exclude<Engine, 'h2'>, ReadonlyMap<string, string>> = { postgres: POSTGRES, mysql: MYSQL, duckdb: DUCKDB, sqlite: SQLITE, clickhouse: CLICKHOUSE, jdbc: JDBC };

function names(why: string, list: string): Array<[string, string]> {
  return list.split(' ').map((name) => [name.toUpperCase(), why]);
}

/** One refused call: `op` as reported among a statement's write operations, `why` for the refusal. */
export interface SideEffectCall {
  op: string;
  why: string;
}

/**
 * Refused functions the statement calls: a name (bare, quoted or the last
 * part of a qualified one) right before `(`, decoded as the engine reads it
 * (identifiers.ts) and compared without case, so a quoted look-alike is
 * refused too. Strings and comments are never names. One pass over the
 * tokens; `set_config` also reads its own argument list. On H2 every call
 * must be on its allowlist instead (h2.ts).
 */
export function sideEffectCalls(tokens: Token[], engine: Engine): SideEffectCall[] {
  if (engine === 'h2') return h2Calls(tokens);
  const refused = BY_ENGINE[engine];
  const calls: SideEffectCall[] = [];
  for (let i = 0; i + 1 < tokens.length; i++) {
    if (!isPunct(tokens[i + 1], '(') || tokens[i - 1]?.word === 'AS') continue;
    const read = readName(tokens[i], engine);
    if (read === null || !('name' in read)) continue;
    const name = caseless(read.name);
    const why = refused.get(name) ?? (engine === 'postgres' ? postgresOnly(name, tokens, i + 1) : undefined);
    if (why) calls.push({ op: `${name}()`, why: `${name}() ${why}` });
  }
  return calls;
}

/** `dblink_*` by prefix; `set_config` unless its third argument is the literal `true` (a transaction-local change). */
function postgresOnly(name: string, tokens: Token[], open: number): string | undefined {
  if (name.startsWith('DBLINK_')) return 'runs SQL over a connection of its own, outside the read-only transaction';
  if (name !== 'SET_CONFIG') return undefined;
  const third = argument(tokens, open, 2);
  const local = third.length === 1 && third[0].word === 'TRUE';
  return local ? undefined : 'changes a setting for the whole session (only set_config(..., ..., true) is transaction-local)';
}

/** The tokens of argument `index` (0-based) of the call whose `(` is at `open`. */
function argument(tokens: Token[], open: number, index: number): Token[] {
  const close = closingParen(tokens, open);
  let depth = 0;
  let current = 0;
  let start = open + 1;
  for (let i = open + 1; i < close; i++) {
    const token = tokens[i];
    if (isPunct(token, '(')) depth++;
    else if (isPunct(token, ')')) depth--;
    else if (depth === 0 && isPunct(token, ',')) {
      if (current === index) return tokens.slice(start, i);
      current++;
      start = i + 1;
    }
  }
  return current === index ? tokens.slice(start, close) : [];
}
