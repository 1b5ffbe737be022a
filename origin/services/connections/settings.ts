import { isAbsolute, resolve } from 'node:path';
import type { ConnectionSettings } from '../../drivers/types.ts';
import type { Env } from '../../env.ts';
import { expandPassword } from '../../secrets/passwords.ts';
import { type ConnectionFields } from './fields.ts';

/**
 * A connection's settings as its driver needs them, made at connect time:
 * a `${VAR}` password is read from the environment now (it is never stored
 * expanded), and a relative DuckDB or SQLite file path is taken relative to
 * `SLUICE_DATA_DIR`, so the same config works wherever the server starts.
 */
export function driverSettings(
  name: string | null,
  fields: Omit<ConnectionFields, 'active'>,
  env: Pick<Env, 'SLUICE_DATA_DIR' | 'SLUICE_SECRET_REFS'>,
  environment: NodeJS.ProcessEnv = process.env,
): ConnectionSettings {
  return {
    type: fields.db,
    host: fields.host,
    port: fields.port,
    user: fields.user,
    password: expandPassword(name === null ? null : `connection "${name}"`, fields.password, env.SLUICE_SECRET_REFS, environment),
    database: fields.db === 'duckdb' || fields.db === 'sqlite' ? resolveFile(fields.database, env.SLUICE_DATA_DIR) : fields.database,
    options: fields.options,
  };
}

function resolveFile(database: string | null, dataDir: string): string | null {
  if (database === null || database === '' || database === ':memory:') return database || null;
  // URLs (md:, s3://...) and absolute paths are the engine's business.
  if (isAbsolute(database) || /^[a-z][a-z0-9+.-]*:/i.test(database)) return database;
  return resolve(dataDir, database);
}
