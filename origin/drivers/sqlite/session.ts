import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { sessionLost } from '../failures.ts';
import { workerSource, type WorkerData, type WorkerReply, type WorkerRequest } from './worker.ts';

const DRIVER_PATH = createRequire(import.meta.url).resolve('better-sqlite3');

/** One session is one child process holding the database handles (see worker.ts). */
export class SqliteSession {
  private pending: { resolve: (reply: WorkerReply) => void; reject: (error: Error) => void } | null = null;
  private readonly exited: Promise<void>;
  alive = true;

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (reply: WorkerReply) => {
      const pending = this.pending;
      this.pending = null;
      this.child.channel?.unref();
      pending?.resolve(reply);
    });
    const fail = (error: Error) => {
      this.alive = false;
      const pending = this.pending;
      this.pending = null;
      pending?.reject(error);
    };
    child.on('error', fail);
    this.exited = new Promise((resolve) =>
      child.on('exit', () => {
        fail(sessionLost('The SQLite session ended'));
        resolve();
      }),
    );
    // Idle sessions must not keep the server's process alive; `call` holds it while waiting.
    child.unref();
  }

  static async open(database: string): Promise<SqliteSession> {
    const data: WorkerData = { driverPath: DRIVER_PATH, database };
    const child = spawn(process.execPath, ['-e', workerSource, JSON.stringify(data)], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    const session = new SqliteSession(child);
    try {
      await session.wait();
    } catch (error) {
      await session.terminate();
      throw error;
    }
    return session;
  }

  /** Sends one request and waits for its reply; an `error` reply rejects. */
  call(request: WorkerRequest): Promise<WorkerReply> {
    if (!this.alive) return Promise.reject(sessionLost('The SQLite session has ended'));
    const reply = this.wait();
    this.child.send(request);
    return reply;
  }

  private async wait(): Promise<WorkerReply> {
    this.child.channel?.ref();
    const reply = await new Promise<WorkerReply>((resolve, reject) => (this.pending = { resolve, reject }));
    if (reply.type === 'error') throw Object.assign(new Error(reply.message), { code: reply.code ?? 'SQLITE_ERROR' });
    return reply;
  }

  /** Kills the process: the only way to stop a synchronous SQLite statement. */
  async terminate(): Promise<void> {
    this.alive = false;
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.ref(); // until its exit is seen, or the server could stop waiting for it
      this.child.kill('SIGKILL');
    }
    await this.exited;
  }
}
