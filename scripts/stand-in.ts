/**
 * `npm run stand-in -- s3|mongodb|clickhouse`: starts on loopback one of the
 * stand-in servers the tests run against (docs/testing.md says what each
 * invents), prints what a connection or destination needs to reach it, and
 * keeps it running until Ctrl-C, which stops it and removes its data. The
 * servers come from test/package.json, installed by `bash scripts/services.sh`.
 */

const USAGE = `Usage: npm run stand-in -- s3|mongodb|clickhouse

Starts a stand-in server on 127.0.0.1 (a free port), as the tests use it, to
try Sluice's destinations, MongoDB or ClickHouse on one machine:

  s3          s3rver behind a SigV4 signature check, with an empty bucket "exports"
  mongodb     the CongoServer MongoDB-protocol emulator, with test.films holding 3 documents
  clickhouse  chdb (ClickHouse in process) behind an HTTP front

It prints shell variables for the next steps (docs/reference/destinations.md,
mongodb.md, connections.md#clickhouse) and runs until Ctrl-C, which stops it
and removes its data. Needs \`bash scripts/services.sh\` once (it installs the
servers into test/node_modules).
`;

interface Started {
  what: string;
  variables: Record<string, string | number>;
  stop(): Promise<void>;
}

const FILMS = [
  { _id: 1, title: 'Alien', year: 1979, length_minutes: 117 },
  { _id: 2, title: 'Brazil', year: 1985, length_minutes: 142 },
  { _id: 3, title: 'Heat', year: 1995, length_minutes: 170 },
];

const STARTERS: Record<string, () => Promise<Started>> = {
  async s3() {
    const { startS3 } = await import('../test/harness/s3.ts');
    const s3 = await startS3({ buckets: ['exports'] });
    return {
      what: 's3rver behind a SigV4 signature check, bucket "exports"',
      variables: { S3_ENDPOINT: s3.endpoint, S3_REGION: s3.region, S3_KEY_ID: s3.accessKeyId, S3_SECRET: s3.secretAccessKey },
      stop: () => s3.stop(),
    };
  },
  async mongodb() {
    const { startMongo } = await import('../test/harness/mongo.ts');
    const mongo = await startMongo();
    await mongo.storage().insertMany('test', 'films', FILMS);
    return { what: 'the CongoServer MongoDB-protocol emulator, test.films holding 3 documents', variables: { MONGO_HOST: mongo.host, MONGO_PORT: mongo.port }, stop: () => mongo.stop() };
  },
  async clickhouse() {
    const { startClickhouse } = await import('../test/harness/clickhouse.ts');
    const clickhouse = await startClickhouse();
    return { what: 'chdb behind an HTTP front', variables: { CLICKHOUSE_HOST: clickhouse.host, CLICKHOUSE_PORT: clickhouse.port }, stop: () => clickhouse.stop() };
  },
};

const missing = (err: unknown) => ['ERR_MODULE_NOT_FOUND', 'MODULE_NOT_FOUND'].includes((err as { code?: string }).code ?? '');

async function main(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  const start = args.length === 1 ? STARTERS[args[0]!] : undefined;
  if (!start) {
    process.stderr.write(`stand-in: name one server: ${Object.keys(STARTERS).join(', ')} (npm run stand-in -- --help)\n`);
    return 1;
  }
  let started: Started;
  try {
    started = await start();
  } catch (err) {
    if (!missing(err)) throw err;
    process.stderr.write(`stand-in: the test-only servers are not installed (${(err as Error).message.split('\n')[0]}): run \`bash scripts/services.sh\` once, then this again\n`);
    return 1;
  }
  const exports = Object.entries(started.variables).map(([name, value]) => `${name}=${value}`);
  process.stdout.write(`${args[0]}: ${started.what}, on 127.0.0.1; Ctrl-C stops it and removes its data. In the shell of the next steps:\nexport ${exports.join(' ')}\n`);
  // Ctrl-C reaches this process twice (from the terminal and relayed by tsx): a handler stays, so a second signal cannot cut the stop short.
  await new Promise<void>((resolve) => {
    process.on('SIGINT', () => resolve());
    process.on('SIGTERM', () => resolve());
  });
  await started.stop();
  process.stdout.write(`${args[0]}: stopped\n`);
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
