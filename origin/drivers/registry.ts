import { createHash } from 'node:crypto';
import { ClickhouseDriver } from './clickhouse/driver.ts';
import { DuckdbDriver } from './duckdb/driver.ts';
import { MongoDriver } from './mongodb/driver.ts';
import { JdbcDriver } from './jdbc/driver.ts';
import { pipesOpen } from './duckdb/pipe.ts';
import { MysqlDriver } from './mysql/driver.ts';
import { PostgresDriver } from './postgres/driver.ts';
import { SqliteDriver } from './sqlite/driver.ts';
import type { AnyDriver, ConnectionSettings, Driver, DriverEnv, SqlDriverType } from './types.ts';

export type { DriverEnv } from './types.ts';

/** A driver for one connection's settings. Sessions open lazily, on first use. */
export function createDriver(settings: ConnectionSettings & { type: SqlDriverType }, env: DriverEnv): Driver;
export function createDriver(settings: ConnectionSettings, env: DriverEnv): AnyDriver;
export function createDriver(settings: ConnectionSettings, env: DriverEnv): AnyDriver {
  switch (settings.type) {
    case 'postgres':
      return new PostgresDriver(settings, env);
    case 'mysql':
      return new MysqlDriver(settings, env);
    case 'duckdb':
      return new DuckdbDriver(settings, env);
    case 'sqlite':
      return new SqliteDriver(settings, env);
    case 'mongodb':
      return new MongoDriver(settings, env);
    case 'clickhouse':
      return new ClickhouseDriver(settings, env);
    case 'jdbc':
    case 'h2':
      return new JdbcDriver(settings, env);
    default:
      throw new Error(`No driver for connection type "${String(settings.type)}"`);
  }
}

/** JSON with object keys sorted, so equal settings hash equally whatever their key order. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

const hashes = new WeakMap<ConnectionSettings, string>();

/**
 * A digest of everything a driver is built from (the resolved password
 * included). Remembered per settings object: the connection cache hands the
 * same object to every query, and settings are never mutated.
 */
export function settingsHash(settings: ConnectionSettings): string {
  let hash = hashes.get(settings);
  if (hash === undefined) {
    hash = createHash('sha256').update(stableJson(settings)).digest('hex');
    hashes.set(settings, hash);
  }
  return hash;
}

/**
 * One driver (and so one session pool) per connection name. An edited
 * connection gets a new driver on its next use; the old one is closed (its
 * idle sessions at once, busy ones as their statements finish).
 */
export class DriverRegistry {
  private readonly drivers = new Map<string, { hash: string; driver: AnyDriver }>();

  constructor(
    private readonly env: DriverEnv,
    private readonly create: (settings: ConnectionSettings, env: DriverEnv) => AnyDriver = createDriver,
  ) {}

  get(name: string, settings: ConnectionSettings): AnyDriver {
    const hash = settingsHash(settings);
    const entry = this.drivers.get(name);
    if (entry?.hash === hash) return entry.driver;
    const driver = this.create(settings, this.env);
    this.drivers.set(name, { hash, driver });
    if (entry) void entry.driver.close().catch(() => {});
    return driver;
  }

  /** Forgets a connection's driver and closes it. */
  async drop(name: string): Promise<void> {
    const entry = this.drivers.get(name);
    if (!entry) return;
    this.drivers.delete(name);
    await entry.driver.close().catch(() => {});
  }

  async closeAll(): Promise<void> {
    const entries = [...this.drivers.values()];
    this.drivers.clear();
    await Promise.all(entries.map((entry) => entry.driver.close().catch(() => {})));
  }

  /** Idle sessions across every driver (the `pool_idle_connections` gauge). */
  idleCount(): number {
    let total = 0;
    for (const { driver } of this.drivers.values()) total += driver.idleSessions();
    return total;
  }

  /** DuckDB streams written into pipes now (the `stream_pipes` gauge). */
  pipeCount(): number {
    return pipesOpen();
  }
}
