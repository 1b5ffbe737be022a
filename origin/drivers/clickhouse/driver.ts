import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client';
import { openCursor } from '../cursor.ts';
import { PooledDriver } from '../pooled.ts';
import type { ConnectionSettings, DriverEnv, LineFormat, LineStream, RowCursor, RunRequest } from '../types.ts';
import { clickhouseCatalog, type CatalogHandle } from './catalog.ts';
import { ClickhouseLines } from './lines.ts';
import { userSettings } from './settings.ts';
import { type ClickhouseSession, type StatementHost } from './request.ts';
import { ClickhouseStatement } from './statement.ts';

/** ClickHouse's TIMEOUT_EXCEEDED: `max_execution_time` reached on the server. */
const TIMEOUT_EXCEEDED = '159';

let loaded: Promise<typeof import('@clickhouse/client')> | null = null;
/** The client on the first ClickHouse connection only. */
const loadClient = () => (loaded ??= import('@clickhouse/client'));

/**
 * ClickHouse over HTTP(S) with the official `@clickhouse/client`. Creating
 * the driver connects to nothing; the client keeps its own keep-alive
 * sockets, and the pool's sessions are slots that bound and count running
 * statements as every driver's do.
 */
export class ClickhouseDriver extends PooledDriver<ClickhouseSession, CatalogHandle> implements StatementHost {
  readonly type = 'clickhouse' as const;
  readonly dialect = 'clickhouse' as const;
  protected readonly catalog = clickhouseCatalog;
  readonly extraSettings: ClickHouseSettings;
  private clientPromise: Promise<ClickHouseClient> | null = null;
  private ready: ClickHouseClient | null = null;
  private slots = 0;

  constructor(
    private readonly settings: ConnectionSettings,
    env: DriverEnv,
  ) {
    super(settings, env);
    this.extraSettings = userSettings(settings.options);
  }

  get client(): ClickHouseClient {
    if (!this.ready) throw new Error('ClickHouse client used before a session opened');
    return this.ready;
  }

  private async makeClient(): Promise<ClickHouseClient> {
    const { createClient, ClickHouseLogLevel } = await loadClient();
    const { settings } = this;
    const options = settings.options;
    const secure = options.secure === true;
    const seconds = (value: unknown, fallback: number) => (typeof value === 'number' && value > 0 ? value : fallback) * 1000;
    return createClient({
      url: `${secure ? 'https' : 'http'}://${settings.host ?? '127.0.0.1'}:${settings.port ?? (secure ? 8443 : 8123)}`,
      username: settings.user ?? 'default',
      password: settings.password ?? '',
      database: settings.database ?? 'default',
      // Our own timer bounds statements; the request timeout only catches a server that stops answering.
      request_timeout: seconds(options.request_timeout, 24 * 3600),
      compression: { response: options.compression === true, request: false },
      max_open_connections: Math.max(this.env.poolSize, 1) * 2 + 2,
      // The client's log prints settings and server messages: never ours to write.
      log: { level: ClickHouseLogLevel.OFF },
      application: 'sluice',
    });
  }

  async openSession(): Promise<ClickhouseSession> {
    this.clientPromise ??= this.makeClient();
    this.ready = await this.clientPromise;
    return { id: ++this.slots };
  }

  protected async destroySession(): Promise<void> {}

  protected handle(): CatalogHandle {
    return { client: this.client, database: this.settings.database ?? 'default', extraSettings: this.extraSettings };
  }

  /** A statement error leaves nothing behind on an HTTP slot. */
  protected override keepsSessionAfter(): boolean {
    return true;
  }

  /** `KILL QUERY` by the statement's id, from a request of its own; best effort. */
  async killQuery(queryId: string): Promise<void> {
    await this.client
      .command({ query: `KILL QUERY WHERE query_id = {id:String} ASYNC`, query_params: { id: queryId } })
      .catch(() => {});
  }

  /**
   * A setting as the user's profile gives it: read without the settings every
   * statement sends (a read sends `readonly = 1`, which would hide the user's
   * own); a fixed read of system.settings, nothing else.
   */
  userSetting(name: string): Promise<string | null> {
    return this.withSession(async ({ client }) => {
      const result = await client.query({ query: 'SELECT value FROM system.settings WHERE name = {name:String}', query_params: { name }, format: 'JSONCompactEachRow' });
      const [row] = await result.json<[string]>();
      return row?.[0] ?? null;
    });
  }

  async run(request: RunRequest): Promise<RowCursor> {
    const session = await this.sessionForStatement(request);
    return openCursor(new ClickhouseStatement(this, session, request, this.readOnly(request)), {
      request,
      fail: (error) => this.statementFailed(error),
      isTimeout: (error) => (error as { code?: unknown }).code === TIMEOUT_EXCEEDED,
    });
  }

  /**
   * The push-down (render.ts, lines.ts): ClickHouse writes each row as the
   * finished line and streams it as `RawBLOB`. Null, having run nothing, for
   * a column type without an exact rendering or a statement that cannot be
   * described or wrapped.
   */
  async streamLines(request: RunRequest, format: LineFormat): Promise<LineStream | null> {
    const session = await this.sessionOrNull(request);
    if (!session) return null;
    const source = new ClickhouseLines(this, session, request, format, this.readOnly(request));
    if (!(await source.plan())) {
      await source.finish('failed', false);
      return null;
    }
    return openCursor(source, {
      request,
      fail: (error) => this.statementFailed(error),
      isTimeout: (error) => (error as { code?: unknown }).code === TIMEOUT_EXCEEDED,
    });
  }

  override async close(): Promise<void> {
    await super.close();
    const client = this.clientPromise;
    this.clientPromise = null;
    if (client) await (await client).close().catch(() => {});
  }
}
