import type { FindCursor, MongoClient } from 'mongodb';
import { SluiceError } from '../../errors.ts';
import { type Outcome, type StatementSource, openCursor } from '../cursor.ts';
import { connectionFailed } from '../failures.ts';
import { createRedactor, redactedMessage, statementDetail, type Redactor } from '../redact.ts';
import type { Value } from '../../values.ts';
import type { ConnectionSettings, DocumentCursor, DocumentDriver, DocumentFields, DocumentRequest, DriverEnv, SchemaListing } from '../types.ts';
import { collectionDdl, listSchema } from './catalog.ts';
import { type ClientConfig, clientConfig, parseMongoUri } from './client.ts';
import { documentFields, topValue } from './values.ts';

/** The server's error for a statement past its `maxTimeMS`. */
const MAX_TIME_MS_EXPIRED = 50;

/** Errors that mean the server could not be reached, as opposed to refusing the read. */
const UNREACHABLE = new Set(['MongoServerSelectionError', 'MongoNetworkError', 'MongoNetworkTimeoutError', 'MongoTopologyClosedError', 'MongoParseError', 'MongoInvalidArgumentError']);

const isUnreachable = (error: unknown) => error instanceof Error && UNREACHABLE.has(error.name);

/**
 * The `mongodb` connection type, through the official driver. One client per
 * driver instance, with the official driver's own connection pool (at most
 * SLUICE_POOL_MAX connections, reads past it wait their turn; idle ones close
 * after SLUICE_POOL_IDLE_TIMEOUT). Only reads are ever sent: `find`,
 * `listCollections`, `listIndexes`, `listDatabases`, `ping`.
 */
export class MongoDriver implements DocumentDriver {
  readonly type = 'mongodb' as const;
  private readonly redactor: Redactor;
  private client: Promise<{ client: MongoClient; config: ClientConfig }> | null = null;
  private open = 0;
  private busy = 0;

  constructor(
    private readonly settings: ConnectionSettings,
    private readonly env: DriverEnv,
  ) {
    const uri = typeof settings.options.uri === 'string' ? parseMongoUri(settings.options.uri) : null;
    this.redactor = createRedactor(settings.password, uri?.password);
  }

  /**
   * The client, made on first use (a bad URI or option fails the statement
   * that needed it, and the next one tries again). The official driver is
   * loaded then too: ~20 MiB an origin without MongoDB connections never holds.
   */
  private connect(): Promise<{ client: MongoClient; config: ClientConfig }> {
    this.client ??= (async () => {
      const config = clientConfig(this.settings, this.env);
      const { MongoClient } = await import('mongodb');
      const client = new MongoClient(config.uri, config.options);
      client.on('connectionCreated', () => this.open++);
      client.on('connectionClosed', () => this.open--);
      client.on('connectionCheckedOut', () => this.busy++);
      client.on('connectionCheckedIn', () => this.busy--);
      return { client, config };
    })().catch((error: unknown) => {
      this.client = null;
      throw error;
    });
    return this.client;
  }

  private async databaseOf(name?: string): Promise<Db> {
    const { client, config } = await this.connect();
    return client.db(name ?? config.database);
  }

  /** A read's failure as the client's: unreachable (redacted with the password) or refused (the server's message). */
  private failed(error: unknown): SluiceError {
    if (error instanceof SluiceError) return error;
    if (isUnreachable(error)) {
      return new SluiceError('query_failed', 'The database could not be reached', { detail: redactedMessage(error, this.redactor) });
    }
    return new SluiceError('query_failed', 'The database rejected the query', { detail: this.redactor(statementDetail(error)) });
  }

  async find(request: DocumentRequest): Promise<DocumentCursor> {
    let db;
    try {
      db = await this.databaseOf();
    } catch (error) {
      throw this.failed(error);
    }
    return openCursor(new FindStatement(db, request), {
      request,
      fail: (error) => this.failed(error),
      isTimeout: (error) => (error as { code?: unknown }).code === MAX_TIME_MS_EXPIRED,
    });
  }

  distinct({ collection, field, timeoutMs }: { collection: string; field: string; timeoutMs: number }): Promise<Value[]> {
    return this.read(async () => {
      const values = await (await this.databaseOf()).collection(collection).distinct(field, {}, { maxTimeMS: timeoutMs > 0 ? timeoutMs : undefined });
      return values.map(topValue);
    });
  }

  private async read<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw this.failed(error);
    }
  }

  schema(options: { database?: string; maxColumns: number }): Promise<SchemaListing> {
    return this.read(async () => listSchema(await this.databaseOf(options.database), options.maxColumns));
  }

  databases(): Promise<string[]> {
    return this.read(async () => {
      const { databases } = await (await this.databaseOf()).admin().listDatabases({ nameOnly: true });
      return databases.map((d) => d.name).sort();
    }).catch((error) => Promise.reject(connectionFailed(error, this.redactor)));
  }

  /** MongoDB keeps no comments on collections or fields. */
  async comments(): Promise<null> {
    return null;
  }

  tableDdl(table: string): Promise<string> {
    return this.read(async () => collectionDdl(await this.databaseOf(), table));
  }

  async test(): Promise<void> {
    await this.read(async () => (await this.databaseOf()).command({ ping: 1 })).catch((error) => Promise.reject(connectionFailed(error, this.redactor)));
  }

  idleSessions(): number {
    return Math.max(0, this.open - this.busy);
  }

  async close(): Promise<void> {
    const made = this.client;
    this.client = null;
    const opened = await made?.catch(() => null);
    await opened?.client.close().catch(() => {});
  }
}

type Db = ReturnType<MongoClient['db']>;

/**
 * One find as the shared cursor life runs it (cursor.ts): the first batch is
 * read before the run resolves, later ones on demand. The time limit is sent
 * as `maxTimeMS` and also kept on this side: `interrupt` aborts a command in
 * flight (the driver closes that connection, and with it forgets the cursor)
 * and `finish` closes the server's cursor whenever the documents were not all
 * read: the driver's own `killCursors`, or ours when a cancel made the driver
 * drop the cursor (a server keeps an abandoned cursor for minutes).
 */
class FindStatement implements StatementSource<DocumentFields[]> {
  private cursor: FindCursor | null = null;
  private readonly controller = new AbortController();
  private pulling = false;
  private cancelled = false;

  constructor(
    private readonly db: Db,
    private readonly request: DocumentRequest,
  ) {}

  async start() {
    const { query, timeoutMs, batchSize } = this.request;
    this.cursor = this.db.collection(query.collection).find(query.filter, {
      projection: query.projection ?? undefined,
      sort: (query.sort ?? undefined) as never,
      skip: query.skip > 0 ? query.skip : undefined,
      limit: query.limit > 0 ? query.limit : undefined,
      batchSize,
      maxTimeMS: timeoutMs > 0 ? timeoutMs : undefined,
      useBigInt64: true,
      signal: this.controller.signal,
    });
    return [];
  }

  async pull(): Promise<DocumentFields[] | null> {
    const cursor = this.cursor!;
    this.pulling = true;
    try {
      if (cursor.bufferedCount() === 0 && !(await cursor.hasNext())) return null;
    } finally {
      this.pulling = false;
    }
    return cursor.readBufferedDocuments(this.request.batchSize).map((document) => documentFields(document as Record<string, unknown>));
  }

  interrupt(): void {
    // Between batches nothing is in flight: `finish` closes the server's cursor. A command in flight is aborted.
    if (!this.pulling) return;
    this.cancelled = true;
    this.controller.abort(new Error('cancelled'));
  }

  async finish(_outcome: Outcome): Promise<void> {
    const cursor = this.cursor;
    if (!cursor) return;
    const id = cursor.id;
    await cursor.close().catch(() => {});
    if (this.cancelled && id && !id.isZero()) {
      await this.db.command({ killCursors: this.request.query.collection, cursors: [id] }).catch(() => {});
    }
  }
}
