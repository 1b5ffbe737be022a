import { MongoClient } from 'mongodb';
// The wire-protocol server alone: the package's index also loads a launcher that downloads MongoDB binaries.
import { CongoServer } from '@push.rocks/smartmongo/dist_ts/congodb/index.js';

/**
 * A MongoDB wire-protocol server for the tests: CongoServer from
 * `@push.rocks/smartmongo` (an in-memory emulator in JavaScript), on
 * loopback, in the test's own process; no MongoDB server installs on these
 * machines (docs/reference/mongodb.md). Clients, the origin's driver
 * included, reach it with the official `mongodb` driver.
 *
 *   const mongo = await startMongo();
 *   await mongo.client().db('test').collection('c').insertMany([...]);
 *   ... connection { db: 'mongodb', host: mongo.host, port: mongo.port, database: 'test' }
 *   await mongo.stop();
 *
 * What the emulator lacks, the harness shows from outside: `commands` lists
 * every command the server received (name, collection, `maxTimeMS`), so a
 * test sees the driver send `maxTimeMS` and `killCursors`; `openCursors`
 * counts the server's open cursors on a collection. A find on a collection
 * whose name starts with `endless` is answered only after ENDLESS_MS, the
 * emulator's stand-in for a read that runs far longer than any test.
 */

export const ENDLESS_MS = 120_000;

export interface ReceivedCommand {
  name: string;
  database: string;
  /** The collection a find, getMore (its `collection`) or killCursors names. */
  collection: string | null;
  maxTimeMS: number | null;
}

export interface TestMongo {
  host: string;
  port: number;
  /** `mongodb://127.0.0.1:<port>/` */
  uri: string;
  /** A client of the test's own (directConnection), closed by `stop()`. */
  client(): MongoClient;
  commands: ReceivedCommand[];
  /** Open server cursors on collections whose name contains `marker`. */
  openCursors(marker: string): number;
  /** The emulator's storage, to load many documents without the wire (the bench). */
  storage(): { insertMany(database: string, collection: string, documents: Record<string, unknown>[]): Promise<unknown> };
  stop(): Promise<void>;
}

interface ParsedCommand {
  commandName: string;
  database: string;
  command: Record<string, unknown>;
}

interface Internals {
  server: { address(): { port: number } };
  commandRouter: { route(parsed: ParsedCommand): Promise<unknown>; cursors: Map<bigint, { collection: string }> };
}

export interface MongoOptions {
  /** Default: a free one. */
  port?: number;
}

export async function startMongo(options: MongoOptions = {}): Promise<TestMongo> {
  const server = new CongoServer({ host: '127.0.0.1', port: options.port ?? 0 });
  await server.start();
  const internals = server as unknown as Internals;
  const port = internals.server.address().port;
  const commands: ReceivedCommand[] = [];
  const router = internals.commandRouter;
  const route = router.route.bind(router);
  const timers = new Set<NodeJS.Timeout>();
  router.route = async (parsed) => {
    const { commandName, command, database } = parsed;
    const named = command[commandName];
    const collection = commandName === 'getMore' ? String(command.collection) : typeof named === 'string' ? named : null;
    commands.push({ name: commandName, database, collection, maxTimeMS: typeof command.maxTimeMS === 'number' ? command.maxTimeMS : null });
    if (commandName === 'find' && collection?.startsWith('endless')) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => (timers.delete(timer), resolve()), ENDLESS_MS);
        timer.unref();
        timers.add(timer);
      });
    }
    return route(parsed);
  };
  const uri = `mongodb://127.0.0.1:${port}/`;
  let client: MongoClient | null = null;
  return {
    host: '127.0.0.1',
    port,
    uri,
    client() {
      client ??= new MongoClient(uri, { directConnection: true });
      return client;
    },
    commands,
    storage: () => server.getStorage(),
    openCursors: (marker) => [...router.cursors.values()].filter((cursor) => cursor.collection.includes(marker)).length,
    async stop() {
      for (const timer of timers) clearTimeout(timer);
      await client?.close();
      await server.stop();
    },
  };
}
