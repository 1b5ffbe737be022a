/**
 * The process a SQLite session runs in. better-sqlite3 is synchronous and has
 * no interrupt, so each session's statements run in a child process that is
 * killed when a statement passes its time limit or its client goes away.
 *
 * Not a worker thread: `Worker.terminate()` only stops JavaScript, and a
 * statement inside one `sqlite3_step` call (`select count(*)` over an endless
 * recursive CTE) never returns to JavaScript, so the thread spins on (ADR
 * 0003). A process can be killed outright.
 *
 * A read runs on a read-only handle, where a statement the guard lets
 * through changes nothing that outlives it (pragma table functions only
 * read; load_extension() is off). A write's handle may have been changed in
 * any way (PRAGMA, ATTACH, temporary tables), so it is closed as the write
 * ends and the next write opens it afresh. A `:memory:` database is that
 * handle's own: it starts empty again after every write.
 *
 * Protocol (one request at a time, each answered by one reply):
 *   run {text, values, write}  -> columns {columns}          (a reader: iterate)
 *                              -> columns {columns: [], done} (a writer: ran)
 *   next {size}                -> batch {rows, done}
 *   end                        -> ended                       (stop iterating)
 *   all {text, values}         -> rows {rows}                 (catalog reads)
 *   any failure                -> error {message, code}
 */

export type WorkerRequest =
  | { op: 'run'; text: string; values: unknown[]; write: boolean }
  | { op: 'next'; size: number }
  | { op: 'end' }
  | { op: 'all'; text: string; values: unknown[] };

export type WorkerReply =
  | { type: 'ready' }
  | { type: 'columns'; columns: { name: string; declaredType: string | null }[]; done: boolean }
  | { type: 'batch'; rows: unknown[][]; done: boolean }
  | { type: 'ended' }
  | { type: 'rows'; rows: unknown[][] }
  | { type: 'error'; message: string; code: string | null };

/** Passed as the process's one argument, as JSON. */
export interface WorkerData {
  /** Resolved path of the better-sqlite3 package entry. */
  driverPath: string;
  database: string;
}

/**
 * The child's body. It runs from its source text (`workerSource`, via
 * `node -e`), so it must not use anything from this module's scope: only
 * globals, built-ins and its argument. It exits when its parent goes away.
 */
function sqliteWorkerMain(): void {
  const { createRequire } = process.getBuiltinModule('node:module') as typeof import('node:module');
  const data = JSON.parse(process.argv[process.argv.length - 1]) as WorkerData;
  const Database = createRequire(data.driverPath)(data.driverPath) as typeof import('better-sqlite3');
  type Handle = import('better-sqlite3').Database;
  const memory = data.database === ':memory:';

  let readHandle: Handle | null = null;
  let writeHandle: Handle | null = null;
  let rows: IterableIterator<unknown[]> | null = null;
  /** The running statement is a write: its handle is closed when it ends. */
  let writing = false;

  const reader = () => (readHandle ??= new Database(data.database, memory ? {} : { readonly: true, fileMustExist: true }));
  const writer = () => (memory ? reader() : (writeHandle ??= new Database(data.database, { fileMustExist: true })));
  const send = (reply: WorkerReply) => process.send!(reply);
  const ended = () => {
    rows = null;
    if (!writing) return;
    writing = false;
    const handle = memory ? readHandle : writeHandle;
    if (memory) readHandle = null;
    else writeHandle = null;
    try {
      handle?.close();
    } catch {
      // dropped all the same
    }
  };
  const plain = (row: unknown[]) => {
    for (let i = 0; i < row.length; i++) {
      const v = row[i];
      if (typeof v === 'bigint' && v >= -9007199254740991n && v <= 9007199254740991n) row[i] = Number(v);
      // A Buffer would arrive as a Buffer; the value model's binary is a plain Uint8Array.
      else if (v instanceof Uint8Array && v.constructor !== Uint8Array) row[i] = new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
    }
    return row;
  };

  process.on('disconnect', () => process.exit(0));
  process.on('message', (request: WorkerRequest) => {
    try {
      switch (request.op) {
        case 'run': {
          writing = request.write;
          const statement = (request.write ? writer() : reader()).prepare(request.text);
          if (!statement.reader) {
            statement.run(...request.values);
            ended();
            send({ type: 'columns', columns: [], done: true });
            return;
          }
          statement.safeIntegers(true).raw(true);
          const columns = statement.columns().map((c) => ({ name: c.name, declaredType: c.type }));
          rows = statement.iterate(...request.values) as IterableIterator<unknown[]>;
          send({ type: 'columns', columns, done: false });
          return;
        }
        case 'next': {
          const batch: unknown[][] = [];
          while (rows && batch.length < request.size) {
            const next = rows.next();
            if (next.done) ended();
            else batch.push(plain(next.value));
          }
          send({ type: 'batch', rows: batch, done: rows === null });
          return;
        }
        case 'end': {
          rows?.return?.();
          ended();
          send({ type: 'ended' });
          return;
        }
        case 'all': {
          const statement = reader().prepare(request.text).safeIntegers(true).raw(true);
          send({ type: 'rows', rows: (statement.all(...request.values) as unknown[][]).map(plain) });
          return;
        }
      }
    } catch (error) {
      ended();
      const e = error as { message?: string; code?: unknown };
      send({ type: 'error', message: String(e.message ?? error), code: typeof e.code === 'string' ? e.code : null });
    }
  });
  try {
    reader();
    send({ type: 'ready' });
  } catch (error) {
    const e = error as { message?: string; code?: unknown };
    send({ type: 'error', message: String(e.message ?? error), code: typeof e.code === 'string' ? e.code : null });
  }
}

/**
 * Source text for `node -e`. Transpilers that keep
 * function names (tsx, esbuild's keepNames) wrap functions in `__name(...)`;
 * the worker gets a no-op for it.
 */
export const workerSource = `const __name = (target) => target;\n(${sqliteWorkerMain.toString()})();`;
