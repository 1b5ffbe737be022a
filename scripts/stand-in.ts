import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { parseArgs } from 'node:util';

/**
 * `npm run stand-in -- s3|mongodb|clickhouse [--port N]`: starts on loopback
 * one of the stand-in servers the tests run against (docs/testing.md says
 * what each invents), through the harness's own start function, prints what
 * a destination or connection needs to reach it, and keeps it running until
 * Ctrl-C (or SIGTERM), which stops it, removes its data and exits 0.
 *
 * package.json runs it as `exec node --import tsx`, so that npm's child is
 * this process: the shell npm would run it in dies by Ctrl-C's signal even
 * when the server stopped cleanly (npm then exits 130), a signal sent to npm
 * alone would end that shell and leave the server running, and the tsx
 * command's relay exits 130 itself when this process acknowledges a second
 * signal late.
 */

/** How long after a first signal npm's relay of it may still arrive (it comes within milliseconds). */
const RELAY_MS = 300;

interface Started {
  /** Where it listens and what it holds, for the first line printed. */
  where: string;
  /** The shell variables the pages' next steps use. */
  variables: Record<string, string | number>;
  stop(): Promise<void>;
}

interface StandIn {
  summary: string;
  /** Its package in test/package.json, installed by scripts/services.sh. */
  needs: string;
  start(port: number): Promise<Started>;
}

const FILMS = [
  { _id: 1, title: 'Alien', year: 1979, length_minutes: 117 },
  { _id: 2, title: 'Brazil', year: 1985, length_minutes: 142 },
  { _id: 3, title: 'Heat', year: 1995, length_minutes: 170 },
];

const STAND_INS: Record<string, StandIn> = {
  s3: {
    summary: 's3rver behind a SigV4 signature check, with an empty bucket "exports"',
    needs: 's3rver',
    async start(port) {
      const { startS3 } = await import('../test/harness/s3.ts');
      const s3 = await startS3({ buckets: ['exports'], port });
      return {
        where: `s3rver behind a SigV4 signature check on ${s3.endpoint}, with an empty bucket "exports"`,
        variables: { S3_ENDPOINT: s3.endpoint, S3_REGION: s3.region, S3_BUCKET: 'exports', S3_KEY_ID: s3.accessKeyId, S3_SECRET: s3.secretAccessKey },
        stop: () => s3.stop(),
      };
    },
  },
  mongodb: {
    summary: 'the CongoServer MongoDB-protocol emulator, with test.films holding 3 documents',
    needs: '@push.rocks/smartmongo',
    async start(port) {
      const { startMongo } = await import('../test/harness/mongo.ts');
      const mongo = await startMongo({ port });
      await mongo.storage().insertMany('test', 'films', FILMS);
      return {
        where: `the CongoServer MongoDB-protocol emulator on ${mongo.host}:${mongo.port}, with test.films holding 3 documents`,
        variables: { MONGO_HOST: mongo.host, MONGO_PORT: mongo.port },
        stop: () => mongo.stop(),
      };
    },
  },
  clickhouse: {
    summary: 'chdb (ClickHouse in process) behind an HTTP front that asks no password',
    needs: 'chdb',
    async start(port) {
      const { startClickhouse } = await import('../test/harness/clickhouse.ts');
      const clickhouse = await startClickhouse({ port });
      return {
        where: `chdb behind an HTTP front on ${clickhouse.host}:${clickhouse.port}, asking no password`,
        variables: { CLICKHOUSE_HOST: clickhouse.host, CLICKHOUSE_PORT: clickhouse.port, CLICKHOUSE_USER: 'default' },
        stop: () => clickhouse.stop(),
      };
    },
  },
};

const NAMES = Object.keys(STAND_INS);

const USAGE = `Usage: npm run stand-in -- ${NAMES.join('|')} [--port N]

Starts on 127.0.0.1 one of the stand-in servers the tests run against, to try
Sluice's bucket destinations, MongoDB or ClickHouse on one machine:

${NAMES.map((name) => `  ${name.padEnd(11)} ${STAND_INS[name].summary}`).join('\n')}

  --port N    listen on port N (default: a free port)

It prints the shell variables the next steps of docs/reference/destinations.md,
mongodb.md and connections.md (ClickHouse) use, and runs until Ctrl-C, which
stops it and removes its data. docs/testing.md says what each one invents.
Needs \`bash scripts/services.sh\` once: it installs these servers into
test/node_modules.
`;

const fail = (message: string) => {
  process.stderr.write(`stand-in: ${message}\n`);
  return 1;
};

/** Whether a port is free on loopback: a taken one is said plainly before anything starts. */
const free = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = createServer()
      .once('error', () => resolve(false))
      .listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });

const parse = (argv: string[]) => parseArgs({ args: argv, allowPositionals: true, options: { port: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    return fail(`${(err as Error).message} (npm run stand-in -- --help)`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const [name] = positionals;
  const standIn = positionals.length === 1 ? STAND_INS[name!] : undefined;
  if (!standIn) return fail(`${name === undefined || positionals.length > 1 ? 'name one server' : `no stand-in named ${name}`}: ${NAMES.join(', ')} (npm run stand-in -- --help)`);
  const port = Number(values.port ?? 0);
  if (!/^\d+$/.test(values.port ?? '0') || port > 65535) return fail(`--port takes a port number (0-65535), not ${values.port}`);
  if (!existsSync(new URL(`../test/node_modules/${standIn.needs}/package.json`, import.meta.url))) {
    return fail(`${standIn.needs} is not installed in test/node_modules: run \`bash scripts/services.sh\` once, then this again`);
  }
  if (port !== 0 && !(await free(port))) return fail(`port ${port} on 127.0.0.1 is taken: choose another with --port N`);

  // Handlers before the start: a signal during it, or sent the moment the lines below are read, finds them, not the
  // default action (which would leave the server's data behind). Ctrl-C comes twice (from the terminal and relayed by
  // npm): they stay, so the second cannot cut the stop short.
  let firstSignal = 0;
  const signalled = new Promise<void>((resolve) => {
    const onSignal = () => {
      firstSignal ||= performance.now();
      resolve();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  const started = await standIn.start(port);
  const assignments = Object.entries(started.variables).map(([variable, value]) => `${variable}=${value}`);
  process.stdout.write(`${name}: ${started.where}.\nFor the next steps, in another shell:\nexport ${assignments.join(' ')}\nCtrl-C stops it and removes its data.\n`);
  await signalled;
  await started.stop();
  process.stdout.write(`${name}: stopped, its data removed\n`);
  // npm relays Ctrl-C a moment after the terminal's: one landing while this process exits (its handlers already
  // closed) would kill it by the signal, and npm with it, after a clean stop. Live until the relay has come.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, firstSignal + RELAY_MS - performance.now())));
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
