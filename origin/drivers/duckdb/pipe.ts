import { execFile } from 'node:child_process';
import { closeSync, constants, openSync, readSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { StatementSource } from '../cursor.ts';
import { connectSession, createInstance, type InstanceSpec } from './instances.ts';
import { useFineScanTasks } from './scan-tasks.ts';
import type { LinePlan } from './lines.ts';
import { sqlString } from './render.ts';
import { collectYoungGarbage } from '../../native-memory.ts';
import type { ColumnMeta, LineFormat } from '../types.ts';

/**
 * A stream DuckDB writes itself (ADR 0016): `COPY (rendered lines) TO` a
 * named pipe that only this stream's own DuckDB instance may open, read here
 * as bytes. DuckDB's COPY writes several times faster than lines can be
 * fetched through the node API one string at a time.
 *
 * The instance is opened on the connection's file for this stream alone,
 * READ_ONLY, locked down like every other (duckdb-instances.ts) with the pipe
 * as the one extra path, so no other statement can reach the pipe. A pure
 * stream needs little memory, so the instance first gets a small limit;
 * a statement that needs more (a sort, an aggregate, a join's build side)
 * fails with DuckDB's out-of-memory error before its first byte, and then
 * runs again with the connection's own `memory_limit`. With more than one
 * thread, a plain scan runs in vector-sized tasks (duckdb-scan-tasks.ts), so
 * the COPY keeps its order in that small limit and still uses every thread.
 */

/** Per DuckDB thread: with two threads, 16 MB leaves the ordered COPY one thread's worth of buffers and it runs at one thread's rate. */
export const STREAM_MEMORY_PER_THREAD_MB = 10;
const LINE_END: Record<LineFormat, string> = { csv: '\\r\\n', tsv: '\\n', ndjson: '\\n' };
export const OUT_OF_MEMORY = /Out of Memory Error/i;
/**
 * Bytes read between young-generation collections (native-memory.ts): each
 * read is a new buffer outside V8's heap, dead once written to the client,
 * and V8 would otherwise let tens of MB of them pile up.
 */
const SWEEP_BYTES = 4 * 2 ** 20;

/**
 * A COPY holds a libuv worker until it ends (a slow client blocks it in
 * `write`), and the pool also serves DNS, files and every other DuckDB call:
 * pipe streams, and parquet files DuckDB writes (parquet-file.ts), may take
 * half of it at most; the rest take the line path (or the JS writer).
 */
const MAX_PIPES = Math.max(1, Math.floor((Number(process.env.UV_THREADPOOL_SIZE) || 4) / 2));
let pipesInUse = 0;

const run = promisify(execFile);

/**
 * A named pipe in a new private folder (mode 700) under the system's
 * temporary folder; `removePipe` takes both away when the stream ends.
 */
async function makePipe(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'sluice-stream-'));
  const fifo = join(folder, 'stream');
  try {
    await run('mkfifo', ['-m', '600', fifo]);
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
  return fifo;
}

const removePipe = (fifo: string) => rm(dirname(fifo), { recursive: true, force: true }).catch(() => {});

let supported: Promise<boolean> | null = null;

/** Whether this system makes named pipes (`mkfifo` is there, the temporary folder writable): tried once. */
function pipesSupported(): Promise<boolean> {
  supported ??= (async () => {
    if (process.platform === 'win32') return false;
    try {
      await removePipe(await makePipe());
      return true;
    } catch {
      return false;
    }
  })();
  return supported;
}

const UNITS: Record<string, number> = { b: 1, kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40 };

/** DuckDB's `memory_limit` text in bytes (its MB is 10^6, MiB 2^20); Infinity when it is not a plain size (then it is never lower than ours). */
export function memoryBytes(limit: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(limit);
  const unit = UNITS[(match?.[2] || 'b').toLowerCase()];
  return match && unit ? Number(match[1]) * unit : Infinity;
}

/**
 * Whether a pipe stream may start now: the connection's file is READ_ONLY,
 * the system makes pipes, and one is free. Take it at once (construct the
 * source) or another stream may.
 */
export async function pipeAvailable(spec: InstanceSpec): Promise<boolean> {
  if (spec.path === null || !spec.readOnly || !(await pipesSupported())) return false;
  return pipesInUse < MAX_PIPES;
}

/** Takes one of the COPY slots `pipeAvailable` counts; the function returned gives it back (once). */
export function holdPipeSlot(): () => void {
  pipesInUse++;
  let held = true;
  return () => {
    if (held) pipesInUse--;
    held = false;
  };
}

/** One attempt: a pipe, its read end, an instance allowed to open it, and the COPY running into it. */
interface Attempt {
  fifo: string;
  socket: Socket;
  instance: DuckDBInstance;
  connection: DuckDBConnection;
  copy: Promise<unknown>;
  settled: boolean;
  failure: unknown;
  /** Set once the COPY is being stopped: resolves when it has returned. */
  stopped: Promise<void> | null;
}

export class DuckPipeLines implements StatementSource<Uint8Array> {
  private attempt: Attempt | null = null;
  private unswept = 0;
  private readonly releaseSlot = holdPipeSlot();

  constructor(
    private readonly spec: InstanceSpec,
    private readonly plan: LinePlan,
    private readonly format: LineFormat,
    /** Scan in vector-sized tasks: more than one thread, and the plan is a pure stream (duckdb-scan-tasks.ts). */
    private readonly fineTasks: boolean,
  ) {}

  async start(cancelled: AbortSignal): Promise<ColumnMeta[]> {
    const streamMemory = `${STREAM_MEMORY_PER_THREAD_MB * this.spec.threads}MB`;
    if (memoryBytes(this.spec.memoryLimit) > memoryBytes(streamMemory) && (await this.startsWithin(streamMemory, cancelled))) return this.plan.columns;
    await this.begin(this.spec.memoryLimit, cancelled);
    return this.plan.columns;
  }

  /** False when DuckDB ran out of `memoryLimit` before the first byte: nothing was read yet, so it may start over. */
  private async startsWithin(memoryLimit: string, cancelled: AbortSignal): Promise<boolean> {
    let first: Attempt;
    try {
      first = await this.begin(memoryLimit, cancelled);
    } catch (error) {
      // The configured files' views are bound when the instance opens: a CSV reader alone asks for 32 MB.
      if (OUT_OF_MEMORY.test(String(error))) return false;
      throw error;
    }
    await this.firstBytes(first);
    if (!first.settled || !OUT_OF_MEMORY.test(String(first.failure))) return true;
    this.attempt = null;
    await this.end(first);
    return false;
  }

  private async begin(memoryLimit: string, cancelled: AbortSignal): Promise<Attempt> {
    cancelled.throwIfAborted();
    const fifo = await makePipe();
    // Opened before DuckDB opens the other end: a pipe's writer waits for a reader.
    const socket = new Socket({ fd: openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK), readable: true, writable: false });
    socket.pause();
    socket.on('error', () => {});
    let instance: DuckDBInstance | null = null;
    try {
      instance = await createInstance({ ...this.spec, memoryLimit }, [fifo]);
      const connection = await connectSession(instance, this.spec);
      if (this.fineTasks) await useFineScanTasks(connection);
      const options = `FORMAT csv, HEADER false, QUOTE '', ESCAPE '', DELIMITER '', NEW_LINE '${LINE_END[this.format]}'`;
      const attempt: Attempt = { fifo, socket, instance, connection, copy: Promise.resolve(), settled: false, failure: null, stopped: null };
      attempt.copy = connection
        .run(`COPY (${this.plan.text}) TO ${sqlString(fifo)} (${options})`)
        .catch((error: unknown) => (attempt.failure = error))
        .finally(() => {
          attempt.settled = true;
          // A COPY that failed before opening the pipe never closes it: the reader would wait for ever.
          letWriterThrough(fifo);
        });
      this.attempt = attempt;
      // Interrupted while the instance opened: the COPY must not run on unattended.
      if (cancelled.aborted) void stop(attempt);
      return attempt;
    } catch (error) {
      socket.destroy();
      instance?.closeSync();
      await removePipe(fifo);
      throw error;
    }
  }

  /** Until the pipe has bytes to read or the COPY has ended. */
  private async firstBytes(attempt: Attempt): Promise<void> {
    // The pipe may end (a COPY that failed closes it) before DuckDB's answer arrives.
    while (attempt.socket.readableLength === 0 && !attempt.settled) await Promise.race([readable(attempt.socket), attempt.copy]);
  }

  async pull(): Promise<Uint8Array | null> {
    const attempt = this.attempt!;
    for (;;) {
      const chunk = attempt.socket.read() as Buffer | null;
      if (chunk) {
        this.unswept += chunk.length;
        if (this.unswept >= SWEEP_BYTES) {
          this.unswept = 0;
          collectYoungGarbage();
        }
        return chunk;
      }
      if (attempt.socket.readableEnded || attempt.socket.destroyed) {
        await attempt.copy;
        if (attempt.failure) throw attempt.failure;
        return null;
      }
      await readable(attempt.socket);
    }
  }

  interrupt(): void {
    if (this.attempt) stop(this.attempt);
  }

  async finish(): Promise<void> {
    const attempt = this.attempt;
    this.attempt = null;
    try {
      // A COPY still running (the client went, the row cap) is stopped there.
      if (attempt) await this.end(attempt);
    } finally {
      this.releaseSlot();
    }
  }

  /** Waits for the COPY to return, closes the instance and removes the pipe. */
  private async end(attempt: Attempt): Promise<void> {
    await stop(attempt);
    attempt.socket.destroy();
    try {
      attempt.connection.closeSync();
      attempt.instance.closeSync();
    } catch {
      // already closed
    }
    await removePipe(attempt.fifo);
  }
}

/** Until the socket has bytes to read, or has ended. */
function readable(socket: Socket): Promise<void> {
  return new Promise<void>((resolve) => {
    const wake = () => {
      socket.off('readable', wake).off('end', wake).off('close', wake);
      resolve();
    };
    socket.on('readable', wake).on('end', wake).on('close', wake);
    // 'end' is emitted only once a read finds nothing left after the end of the data.
    socket.read(0);
  });
}

/** Interrupts the COPY unless it has returned, and drains what it still writes. */
function stop(attempt: Attempt): Promise<void> {
  if (attempt.settled) return Promise.resolve();
  if (!attempt.stopped) {
    attempt.connection.interrupt();
    // A COPY blocked in `write` reaches its next interrupt check once the pipe has room. A waiting
    // 'readable' listener would keep the socket from flowing; the reader it wakes waits for 'end' too.
    attempt.socket.removeAllListeners('readable').on('data', () => {}).resume();
    attempt.stopped = unblock(attempt);
  }
  return attempt.stopped;
}

/**
 * Until the COPY returns. DuckDB checks the interrupt only between chunks,
 * and a thread blocked opening the pipe never gets there: a statement of the
 * stream's own that opened its pipe for reading waits for a writer, and the
 * COPY's writer waits for a reader once ours is gone. Both are let through
 * every 100 ms: a writer that opens and closes at once, and a reader of our
 * own that drains what it finds.
 */
async function unblock(attempt: Attempt): Promise<void> {
  let reader: number | null = null;
  try {
    for (;;) {
      await Promise.race([attempt.copy, delay(100)]);
      if (attempt.settled) return;
      letWriterThrough(attempt.fifo);
      try {
        reader ??= openSync(attempt.fifo, constants.O_RDONLY | constants.O_NONBLOCK);
        drain(reader);
      } catch {
        // the pipe is gone
      }
    }
  } finally {
    if (reader !== null) closeSync(reader);
  }
}

/** A writer that opens the pipe and closes it: its readers see the end of the data once they have read it. */
function letWriterThrough(fifo: string): void {
  try {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // no reader has it open
  }
}

const scratch = Buffer.alloc(64 * 1024);

function drain(fd: number): void {
  try {
    while (readSync(fd, scratch) > 0);
  } catch {
    // EAGAIN: nothing more for now
  }
}

/** Pipe streams running now (the `stream_pipes` gauge). */
export const pipesOpen = () => pipesInUse;
