import type { MongoClientOptions } from 'mongodb';
import type { ConnectionSettings, DriverEnv } from '../types.ts';

/**
 * How a `mongodb` connection's settings become a client: `options.uri` (a
 * `mongodb://` or `mongodb+srv://` URI, stored without its password, see
 * services/connections/mongo-uri.ts) or `host`/`port`; the password always
 * from `password` (resolved), given to the driver as `auth`, never spliced
 * into a URI; the database from `database`, else the URI's path, else
 * `test`. Every other option is the official driver's own
 * (`authSource`, `tls`, `replicaSet`...), passed as given.
 */

export interface ClientConfig {
  uri: string;
  options: MongoClientOptions;
  database: string;
}

/** `scheme://[user[:password]@]hosts[/database][?options]`; hosts may be a comma list, so no URL parser. */
const URI = /^(mongodb(?:\+srv)?):\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/?]+)(?:\/([^?]*))?(?:\?(.*))?$/;

export interface ParsedUri {
  scheme: string;
  user: string | null;
  password: string | null;
  hosts: string;
  database: string | null;
  query: string | null;
}

/** The parts of a MongoDB URI (user, password and database percent-decoded), or null when it is not one. */
export function parseMongoUri(uri: string): ParsedUri | null {
  const m = URI.exec(uri);
  if (!m) return null;
  const decode = (part: string | undefined) => {
    if (part === undefined || part === '') return null;
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  };
  return { scheme: m[1], user: decode(m[2]), password: m[3] === undefined ? null : (decode(m[3]) ?? ''), hosts: m[4], database: decode(m[5]), query: m[6] ?? null };
}

/** The URI as given, without any password (the user kept). */
export function uriWithoutPassword(parsed: ParsedUri, maskedAs?: string): string {
  const user = parsed.user === null ? '' : encodeURIComponent(parsed.user);
  const secret = maskedAs !== undefined && parsed.password !== null ? `:${maskedAs}` : '';
  const userinfo = user || secret ? `${user}${secret}@` : '';
  const database = parsed.database === null ? '' : `/${encodeURIComponent(parsed.database)}`;
  const query = parsed.query === null ? '' : `?${parsed.query}`;
  return `${parsed.scheme}://${userinfo}${parsed.hosts}${database || (query ? '/' : '')}${query}`;
}

const DEFAULT_PORT = 27017;
/** An unreachable server fails a statement within this long, not the driver's 30 s, unless the options say otherwise. */
const SERVER_SELECTION_TIMEOUT_MS = 10_000;

export function clientConfig(settings: ConnectionSettings, env: DriverEnv): ClientConfig {
  const { uri: rawUri, ...driverOptions } = settings.options;
  let uri: string;
  let uriUser: string | null = null;
  let uriDatabase: string | null = null;
  if (typeof rawUri === 'string' && rawUri !== '') {
    const parsed = parseMongoUri(rawUri);
    if (!parsed) throw new Error('options.uri must be a mongodb:// or mongodb+srv:// URI');
    uriUser = parsed.user;
    uriDatabase = parsed.database;
    // The stored URI holds no password; one left in it anyway never reaches the driver's URI parser with the auth below.
    uri = uriWithoutPassword({ ...parsed, user: null, password: null });
  } else {
    const host = settings.host || '127.0.0.1';
    uri = `mongodb://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${settings.port ?? DEFAULT_PORT}/`;
  }
  const username = settings.user ?? uriUser;
  const options: MongoClientOptions = {
    appName: 'sluice',
    serverSelectionTimeoutMS: SERVER_SELECTION_TIMEOUT_MS,
    ...(driverOptions as MongoClientOptions),
    maxPoolSize: env.poolMax,
    maxIdleTimeMS: env.poolIdleTimeoutMs,
    monitorCommands: false,
  };
  if (username !== null || settings.password) {
    options.auth = { username: username ?? undefined, password: settings.password ?? undefined };
  }
  return { uri, options, database: settings.database || uriDatabase || 'test' };
}
