import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';
import { projectPath } from '../../paths.ts';
import { sessionLost } from '../failures.ts';

/**
 * The Java side of the JDBC types: `helper/SluiceJdbc.java`, compiled by
 * `javac` into a cache folder named for the source's digest on first use (or
 * by `npm run build`), run as one process per connection pool, speaking JSON
 * lines (see the Java file). Never a committed .class or jar.
 */

const SOURCE = projectPath('origin/drivers/jdbc/helper/SluiceJdbc.java');
const NO_JDK = 'The jdbc and h2 connection types need a Java 11+ JDK (javac and java): install openjdk-17-jdk-headless';

let compiled: Promise<string> | null = null;

/** The folder holding SluiceJdbc.class, compiled once per source version. */
export function compileHelper(cacheRoot = process.env.SLUICE_JDBC_CACHE ?? join(tmpdir(), 'sluice-jdbc')): Promise<string> {
  compiled ??= (async () => {
    const digest = createHash('sha256').update(readFileSync(SOURCE)).digest('hex').slice(0, 16);
    const dir = join(cacheRoot, digest);
    if (existsSync(join(dir, 'SluiceJdbc.class'))) return dir;
    const building = `${dir}.${process.pid}.tmp`;
    mkdirSync(building, { recursive: true });
    try {
      await new Promise<void>((resolve, reject) =>
        execFile('javac', ['-encoding', 'UTF-8', '-d', building, SOURCE], (error, _out, stderr) => {
          if (!error) resolve();
          else reject(new Error((error as { code?: unknown }).code === 'ENOENT' ? NO_JDK : `javac failed: ${stderr}`));
        }),
      );
      if (!existsSync(join(dir, 'SluiceJdbc.class'))) renameSync(building, dir);
    } finally {
      rmSync(building, { recursive: true, force: true });
    }
    return dir;
  })().catch((error) => {
    compiled = null;
    throw error;
  });
  return compiled;
}

export interface HelperSetup {
  url: string;
  driverClass: string;
  driverJar: string;
  user: string | null;
  password: string | null;
}

type Reply = Record<string, unknown> & { id: number };

/** One running helper: commands per session id, answered in order. */
export class JdbcHelper {
  private readonly waiting = new Map<number, ((reply: Reply | Error) => void)[]>();
  private exited = false;

  /** Resolves once the process has exited. */
  readonly gone: Promise<void>;

  private constructor(private readonly child: ChildProcess) {
    this.gone = new Promise((resolve) => child.once('exit', () => resolve()));
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      let reply: Reply;
      try {
        reply = JSON.parse(line) as Reply;
      } catch {
        return;
      }
      this.waiting.get(reply.id)?.shift()?.(reply);
    });
    child.once('exit', () => {
      this.exited = true;
      const lost = sessionLost('the JDBC helper process ended');
      for (const queue of this.waiting.values()) for (const resolve of queue.splice(0)) resolve(lost);
    });
    child.stdin!.on('error', () => {});
  }

  static async start(setup: HelperSetup): Promise<JdbcHelper> {
    const classes = await compileHelper();
    const child = await new Promise<ChildProcess>((resolve, reject) => {
      const process = spawn('java', ['-Xss1m', '-cp', [classes, setup.driverJar].join(delimiter), 'SluiceJdbc'], { stdio: ['pipe', 'pipe', 'ignore'] });
      process.once('error', (error) => reject((error as { code?: string }).code === 'ENOENT' ? new Error(NO_JDK) : error));
      process.once('spawn', () => resolve(process));
    });
    const helper = new JdbcHelper(child);
    const ready = await helper.send(0, { url: setup.url, driver: setup.driverClass, user: setup.user, password: setup.password }, true);
    if (typeof ready.error === 'string') {
      helper.kill();
      throw Object.assign(new Error(ready.error), { code: 'JDBC_DRIVER' });
    }
    return helper;
  }

  /** False once it ended or was condemned (`killSoon`): no new session may start on it. */
  get alive(): boolean {
    return !this.exited && !this.retiring;
  }

  private retiring = false;

  /** Condemns the process now and kills it after `ms`, so a cancel sent just before can reach the database first. */
  killSoon(ms: number): void {
    this.retiring = true;
    setTimeout(() => this.kill(), ms).unref();
  }

  /** Sends one command and waits for its answer; a reply carrying `error` rejects. */
  async call(id: number, command: Record<string, unknown>): Promise<Reply> {
    const reply = await this.send(id, { id, ...command });
    if (typeof reply.error === 'string') throw Object.assign(new Error(reply.error), { sqlState: reply.state ?? undefined });
    return reply;
  }

  /** Asks the session's running statement to stop (JDBC `Statement.cancel`); no answer comes. */
  cancel(id: number): void {
    if (!this.exited) this.child.stdin!.write(`${JSON.stringify({ id, op: 'cancel' })}\n`);
  }

  private send(id: number, message: Record<string, unknown>, raw = false): Promise<Reply> {
    if (this.exited) return Promise.reject(sessionLost('the JDBC helper process ended'));
    return new Promise<Reply>((resolve, reject) => {
      const queue = this.waiting.get(id) ?? [];
      this.waiting.set(id, queue);
      queue.push((reply) => (reply instanceof Error ? reject(reply) : resolve(reply)));
      this.child.stdin!.write(`${JSON.stringify(raw ? message : message)}\n`);
    });
  }

  /** Ends the process at once: every session's statement with it. */
  kill(): void {
    if (!this.exited) this.child.kill('SIGKILL');
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin!.end();
    const timer = setTimeout(() => this.kill(), 2000);
    await exited;
    clearTimeout(timer);
  }
}
