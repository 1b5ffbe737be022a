import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { parseRate } from '../shared/access/rate.ts';
import { secretKeyProblem } from './secrets/keys.ts';
import { DEFAULT_SECRET_REFS, secretRefPatternProblem } from './secrets/references.ts';
import { DEFAULT_ENDPOINT_DENY, malformedRanges } from './network/endpoint-deny.ts';

/**
 * Every variable the origin reads, parsed once at startup. A malformed value
 * stops startup with a message naming the variable (see `loadEnv`).
 */

const flag = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off', ''])
  .transform((v) => ['1', 'true', 'yes', 'on'].includes(v));

const wholeNumber = (fallback: number, { min = 0, max = Number.MAX_SAFE_INTEGER } = {}) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().min(min).max(max))
    .default(fallback);

/** Seconds, fractions allowed, 0 allowed. */
const seconds = (fallback: number) =>
  z
    .string()
    .regex(/^\d+(\.\d+)?$/, 'must be a number of seconds')
    .transform(Number)
    .default(fallback);

const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v === '' ? undefined : v));

/** Comma-separated absolute folders (SLUICE_EXPORT_DIRS, SLUICE_FILE_DIRS); a relative one stops startup. */
const absoluteFolders = optionalText.transform((text, ctx) => {
  const dirs = (text ?? '').split(',').map((d) => d.trim()).filter((d) => d !== '');
  const relative = dirs.filter((d) => !isAbsolute(d));
  if (relative.length > 0) ctx.addIssue({ code: 'custom', message: `must be absolute paths; not ${relative.join(', ')}` });
  return dirs;
});

function isRedisUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** `scheme://host[:port]` as a browser sends it in `Origin` (lower-case, no default port), or null when `text` is not one. */
function webOrigin(text: string): string | null {
  try {
    const url = new URL(text);
    const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password && !/[/?#]./.test(text.replace(/^[a-z]+:\/\//i, ''));
    return (url.protocol === 'http:' || url.protocol === 'https:') && bare ? url.origin : null;
  } catch {
    return null;
  }
}

/** An OTLP/HTTP receiver's address. */
const otlpUrl = optionalText.pipe(z.string().regex(/^https?:\/\/[^/\s]/i, 'must be an http:// or https:// URL').optional());

/** OTLP over HTTP only: gRPC would need a second transport for the same spans. */
const otlpProtocol = z.string().refine((protocol) => protocol === 'http/protobuf' || protocol === 'http/json', {
  message: 'must be http/protobuf or http/json (grpc is not supported: send to the receiver\'s OTLP/HTTP port, 4318 on a Collector)',
});

/** `name=value,...`, each value URL-encoded: parsed to the headers they name. */
const otlpHeaders = optionalText.transform((text, ctx) => {
  const headers: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    if (pair.trim() === '') continue;
    const at = pair.indexOf('=');
    const name = pair.slice(0, at).trim();
    if (at < 1 || !/^[!#$%&'*+.^`|~\w-]+$/.test(name)) {
      ctx.addIssue({ code: 'custom', message: 'must be name=value pairs separated by commas' });
      return headers;
    }
    try {
      headers[name.toLowerCase()] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      ctx.addIssue({ code: 'custom', message: `the value of ${name} is not URL-encoded text` });
    }
  }
  return headers;
});

export const envSchema = z.object({
  SLUICE_HOST: z.string().min(1).default('127.0.0.1'),
  SLUICE_PORT: wholeNumber(8080, { max: 65535 }),
  SLUICE_DATA_DIR: z.string().min(1).default('./.sluice'),
  SLUICE_DATABASE_URL: optionalText.pipe(
    z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional(),
  ),
  SLUICE_API_KEY: optionalText,
  SLUICE_ALLOW_WRITES: flag.default(false),
  /** A connection whose database user may do more than read is refused to every caller but the server key. */
  SLUICE_REQUIRE_LEAST_PRIVILEGE: flag.default(false),
  SLUICE_QUERY_TIMEOUT: seconds(30),
  SLUICE_MAX_PAGE_SIZE: wholeNumber(1000, { min: 1 }),
  /** Distinct values a parameter's values_query (or values_field) may list; more is refused on save and at refresh. */
  SLUICE_VALUES_MAX: wholeNumber(1000, { min: 1, max: 100_000 }),
  SLUICE_POOL_SIZE: wholeNumber(5),
  /** Sessions per connection setting open at once, busy and idle; callers past it wait their turn. Unset: 10, or SLUICE_POOL_SIZE when that is larger. */
  SLUICE_POOL_MAX: optionalText.pipe(z.string().regex(/^[1-9]\d*$/, 'must be a whole number of at least 1').transform(Number).optional()),
  SLUICE_POOL_IDLE_TIMEOUT: seconds(300),
  /** Unset: streams are unbounded. */
  SLUICE_STREAM_MAX_ROWS: optionalText.pipe(
    z.string().regex(/^[1-9]\d*$/, 'must be a whole number of at least 1').transform(Number).optional(),
  ),
  /** `stream=true` csv/tsv/ndjson rendered by the database where its driver can match the JS bytes exactly. */
  SLUICE_STREAM_PUSHDOWN: flag.default(true),
  /** Runs a per-query history list shows by default (its `limit`). */
  SLUICE_HISTORY_LIMIT: wholeNumber(50, { min: 1, max: 1000 }),
  /** Days run history is kept; 0 keeps it forever. */
  SLUICE_HISTORY_RETENTION_DAYS: wholeNumber(30),
  /** Load the bundled examples on a store that never had them. */
  SLUICE_EXAMPLES: flag.default(true),
  /** Unset: the response cache lives in process memory. Set: shared on this Redis by every origin. */
  SLUICE_REDIS_URL: optionalText.pipe(z.string().refine(isRedisUrl, 'must be a redis:// or rediss:// URL').optional()),
  /** Prefix of every Redis key this deployment writes (cache entries under `<prefix>cache:`). */
  SLUICE_REDIS_PREFIX: z.string().regex(/^\S+$/, 'must be non-empty text without spaces').default('sluice:'),
  /** Memory cache budget in bytes; also the largest body stored in Redis. */
  SLUICE_CACHE_MAX_BYTES: wholeNumber(64 * 1024 * 1024),
  /** `1`: one JSON object per log line; else a readable line. */
  SLUICE_JSON_LOGS: flag.default(false),
  SLUICE_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** A query taking at least this many seconds logs a warning; 0 disables. */
  SLUICE_SLOW_QUERY_THRESHOLD: seconds(1),
  /** Set: `/metrics` answers only `Authorization: Bearer <token>`. */
  SLUICE_METRICS_TOKEN: optionalText,
  /** Requests per client address, `N/second|minute|hour|day`; unset: no server-wide limit. */
  SLUICE_RATE_LIMIT: optionalText.transform((text, ctx) => {
    if (text === undefined) return undefined;
    const spec = parseRate(text);
    if (!spec) ctx.addIssue({ code: 'custom', message: 'must be N/second, N/minute, N/hour or N/day (e.g. 100/minute)' });
    return spec ?? undefined;
  }),
  /** Shared secret that verifies HS256 sign-in tokens (from_claim parameters); at least 256 bits. */
  SLUICE_JWT_SECRET: optionalText.pipe(z.string().min(32, 'must be at least 32 characters (HS256 needs a 256-bit key)').optional()),
  /** JWKS (a file path or an https:// URL) that verifies RS256 and ES256 sign-in tokens. */
  SLUICE_JWT_JWKS: optionalText.pipe(
    z.string().refine((v) => !/^[a-z][a-z0-9+.-]*:\/\//i.test(v) || /^https:\/\/[^/]/i.test(v), 'must be a file path or an https:// URL').optional(),
  ),
  /** Set: a sign-in token's `iss` must be this. */
  SLUICE_JWT_ISSUER: optionalText,
  /** Set: a sign-in token's `aud` must include this. */
  SLUICE_JWT_AUDIENCE: optionalText,
  /** Proxies in front of the server: N > 0 takes the client address and scheme from X-Forwarded-For/-Proto, N hops from the right. */
  SLUICE_TRUST_PROXY: wholeNumber(0, { max: 100 }),
  /** Comma-separated origins (`https://app.example.com`) answered with CORS headers, or `*` for any; unset: no CORS. */
  SLUICE_CORS_ORIGINS: optionalText.transform((text, ctx) => {
    const origins = (text ?? '').split(',').map((o) => o.trim()).filter((o) => o !== '');
    const bad = origins.filter((o) => o !== '*' && webOrigin(o) === null);
    if (bad.length > 0) ctx.addIssue({ code: 'custom', message: `must be origins like https://app.example.com (no path), or *; not ${bad.join(', ')}` });
    // As browsers send `Origin`: lower-case, no default port, no trailing slash.
    return origins.map((o) => (o === '*' ? o : (webOrigin(o) ?? o)));
  }),
  /** Comma-separated absolute folders local-folder destinations must lie inside; unset: no local folder is allowed. */
  SLUICE_EXPORT_DIRS: absoluteFolders,
  /** Comma-separated absolute folders the files a connection names (SQLite, DuckDB, H2, JDBC jars) must lie inside; unset: none. */
  SLUICE_FILE_DIRS: absoluteFolders,
  /** Comma-separated names and `PREFIX*` patterns a `${VAR}` reference may name (origin/secrets/references.ts); unset: `SLUICE_REF_*`. */
  SLUICE_SECRET_REFS: optionalText.transform((text, ctx) => {
    if (text === undefined) return [...DEFAULT_SECRET_REFS];
    const patterns = text.split(',').map((p) => p.trim()).filter((p) => p !== '');
    for (const pattern of patterns) {
      const problem = secretRefPatternProblem(pattern);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }
    return patterns;
  }),
  /** Comma-separated CIDR ranges (or addresses) destination endpoints may never be in, checked as each connection resolves; `none`: no range. */
  SLUICE_ENDPOINT_DENY: optionalText.transform((text, ctx) => {
    if (text === undefined) return DEFAULT_ENDPOINT_DENY;
    if (text.trim() === 'none') return [];
    const ranges = text.split(',').map((r) => r.trim()).filter((r) => r !== '');
    const bad = malformedRanges(ranges);
    if (bad.length > 0) ctx.addIssue({ code: 'custom', message: `must be CIDR ranges or addresses (10.0.0.0/8, fe80::/10, 169.254.169.254), or none; not ${bad.join(', ')}` });
    return ranges;
  }),
  /** AES-256-GCM keys for stored passwords: comma-separated, 32 bytes each in hex or base64; the first encrypts, all decrypt. */
  SLUICE_SECRET_KEY: optionalText.superRefine((text, ctx) => {
    const problem = text === undefined ? null : secretKeyProblem(text);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
  /** Set: audit entries are HMAC-SHA-256 with this key instead of SHA-256 (keep it for the life of the chain). */
  SLUICE_AUDIT_KEY: optionalText.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
  /** Audit entries kept (the newest N); unset keeps every entry. */
  SLUICE_AUDIT_LOG_LIMIT: optionalText.pipe(z.string().regex(/^[1-9]\d{0,14}$/, 'must be a whole number of at least 1').transform(Number).optional()),
  /** Audit entries are appended to this file, one JSON object per line. */
  SLUICE_AUDIT_FILE: optionalText,
  /** Audit entries are POSTed to this http(s) URL in batches. */
  SLUICE_AUDIT_WEBHOOK_URL: optionalText.pipe(z.string().regex(/^https?:\/\/[^/\s]/i, 'must be an http:// or https:// URL').optional()),
  /** The edge Worker this origin pushes its replica to (needs SLUICE_EDGE_SECRET). */
  SLUICE_EDGE_URL: optionalText.pipe(z.string().regex(/^https?:\/\/[^/\s]/i, 'must be an http:// or https:// URL').optional()),
  /** Shared with the edge: signs replica pushes and verifies the edge's caller assertions. */
  SLUICE_EDGE_SECRET: optionalText.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
  /** Seconds the edge may answer from its replica after the last push that reached it (heartbeats every third of it). */
  SLUICE_EDGE_LEASE: wholeNumber(15, { min: 3, max: 600 }),
  /** Seconds an export run's lease lasts unless renewed (every third of it, while the run is alive). */
  SLUICE_EXPORT_LEASE: wholeNumber(60, { min: 3, max: 3600 }),
  /** Folder of stored results' chunk files; unset: `results` under SLUICE_DATA_DIR. */
  SLUICE_RESULT_DIR: optionalText,
  /** The saved destination (s3://, gs://, r2://) whose prefix takes stored results' chunks instead of SLUICE_RESULT_DIR; their links are then its presigned URLs. */
  SLUICE_RESULT_DESTINATION: optionalText,
  /** Seconds a result's chunk link works. */
  SLUICE_RESULT_LINK_TTL: wholeNumber(900, { min: 1, max: 7 * 86_400 }),
  /** Seconds a finished result's chunks are kept. */
  SLUICE_RESULT_TTL: wholeNumber(3600, { min: 10, max: 30 * 86_400 }),
  /** Bytes of chunks this origin keeps at most; a result that would pass it fails. */
  SLUICE_RESULT_MAX_BYTES: wholeNumber(10 * 2 ** 30, { min: 2 ** 20, max: 2 ** 50 }),
  /** Results this origin writes at once; more wait in order (`queued`). */
  SLUICE_RESULTS_MAX_RUNNING: wholeNumber(4, { min: 1, max: 64 }),
  /** Seconds a running result's lease lasts unless renewed: a result whose origin died is marked failed once it lapses. */
  SLUICE_RESULT_LEASE: wholeNumber(30, { min: 3, max: 3600 }),
  /** A second port serving only `/mcp` (the MCP endpoint is always on SLUICE_PORT too); unset: none. */
  SLUICE_MCP_PORT: optionalText.pipe(
    z.string().regex(/^\d+$/, 'must be a port number').transform(Number).pipe(z.number().min(1, 'must be a port from 1 to 65535').max(65535, 'must be a port from 1 to 65535')).optional(),
  ),
  /** Rows an MCP tool call returns at most; the note on a cut result says how to fetch the rest. */
  SLUICE_MCP_MAX_ROWS: wholeNumber(500, { min: 1, max: 100_000 }),
  /** Bytes an MCP tool call's answer holds at most (its rows are cut to fit); the note on a cut result says how to fetch the rest. */
  SLUICE_MCP_MAX_BYTES: wholeNumber(2 ** 20, { min: 64 * 1024, max: 256 * 2 ** 20 }),
  /** A configuration file (YAML or JSON) applied at startup, once per SHA-256 of its bytes. */
  SLUICE_CONFIG_FILE: optionalText,
  /** Applying SLUICE_CONFIG_FILE deletes managed objects the file lacks, in the sections it has. */
  SLUICE_CONFIG_PRUNE: flag.default(false),
  /** Every Management API change to a managed object answers 409 `config_managed`. */
  SLUICE_CONFIG_LOCKED: flag.default(false),
  /** Bytes a configuration file sent to `/api/v1/config/diff` or `apply` may have; past it 413 `config_too_large`. */
  SLUICE_CONFIG_MAX_BYTES: wholeNumber(4 * 2 ** 20, { min: 1024, max: 2 ** 30 }),
  /** Objects (list entries, descriptions' items) such a file may hold; past it 413 `config_too_large`. */
  SLUICE_CONFIG_MAX_OBJECTS: wholeNumber(20_000, { min: 1, max: 10_000_000 }),
  // Tracing (docs/reference/tracing.md): the OpenTelemetry variables, read as its specification says.
  /** The OTLP/HTTP receiver's base URL (traces go to `<url>/v1/traces`); set (or the next one): tracing is on. */
  OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl,
  /** The traces URL itself, used as written; wins over OTEL_EXPORTER_OTLP_ENDPOINT. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otlpUrl,
  OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol.default('http/protobuf'),
  /** Wins over OTEL_EXPORTER_OTLP_PROTOCOL for traces. */
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol.optional(),
  /** `name=value,...` (values URL-encoded) sent with every export: often a credential. */
  OTEL_EXPORTER_OTLP_HEADERS: otlpHeaders,
  /** Wins over OTEL_EXPORTER_OTLP_HEADERS for traces, name by name. */
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: otlpHeaders,
  /** Milliseconds finished spans wait to be sent in a batch. */
  OTEL_BSP_SCHEDULE_DELAY: wholeNumber(5000, { max: 600_000 }),
  /** `true`: no tracing, whatever else is set. */
  OTEL_SDK_DISABLED: flag.default(false),
  /** The `service.name` of every span; unset: the one OTEL_RESOURCE_ATTRIBUTES names, else `sluice`. */
  OTEL_SERVICE_NAME: optionalText,
  /** `key=value,...` added to every span's resource (`deployment.environment.name=prod`). */
  OTEL_RESOURCE_ATTRIBUTES: optionalText,
  OTEL_TRACES_SAMPLER: z
    .enum(['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio', ''])
    .optional()
    .transform((name) => (name ? name : 'parentbased_always_on')),
  /** The ratio of the `traceidratio` samplers, 0 to 1. */
  OTEL_TRACES_SAMPLER_ARG: optionalText.pipe(
    z.string().regex(/^(0(\.\d+)?|1(\.0+)?)$/, 'must be a ratio from 0 to 1 (0.25)').transform(Number).optional(),
  ),
  /** `1`: the query span carries the statement's text (`db.query.text`); never its parameter values. */
  SLUICE_OTEL_SQL_TEXT: flag.default(false),
  /** A trace viewer's link with `{trace_id}` in it: the console links a run's trace to it. */
  SLUICE_TRACE_URL: optionalText.pipe(z.string().regex(/^https?:\/\/[^\s]*\{trace_id\}/i, 'must be an http(s) URL with {trace_id} in it').optional()),
}).superRefine((env, ctx) => {
  if (env.SLUICE_POOL_MAX !== undefined && env.SLUICE_POOL_MAX < env.SLUICE_POOL_SIZE) {
    ctx.addIssue({ code: 'custom', path: ['SLUICE_POOL_MAX'], message: `must be at least SLUICE_POOL_SIZE (${env.SLUICE_POOL_SIZE}): idle sessions are among the open ones` });
  }
});

/** Sessions a driver may have open at once (SLUICE_POOL_MAX, or its default). */
export const poolMax = (env: Pick<Env, 'SLUICE_POOL_MAX' | 'SLUICE_POOL_SIZE'>): number => env.SLUICE_POOL_MAX ?? Math.max(10, env.SLUICE_POOL_SIZE);

export type Env = z.infer<typeof envSchema>;

/** Variables whose values are never echoed: in errors, logs or `GET /api/v1/settings`. */
export const SECRET_VARIABLE = /KEY|SECRET(?!_REFS$)|TOKEN|PASSWORD|DATABASE_URL|REDIS_URL|WEBHOOK_URL|^OTEL_EXPORTER_OTLP_(TRACES_)?HEADERS$/;

/** Parses the variables or throws an Error whose message names each bad one. */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = envSchema.safeParse(source);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => {
    const name = String(issue.path[0] ?? 'environment');
    // A URL or key may carry a credential: name the variable, never echo its value.
    const shown = SECRET_VARIABLE.test(name) ? '' : `=${JSON.stringify(source[name] ?? '')}`;
    return `  ${name}${shown}: ${issue.message}`;
  });
  throw new Error(`Invalid environment:\n${lines.join('\n')}`);
}
