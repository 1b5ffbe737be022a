import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { BSON, MongoClient } from 'mongodb';
import type { Scenario } from '../lib/context.ts';
import { startServer } from '../lib/process.ts';
import type { Figure } from '../lib/report.ts';
import { ratio } from '../lib/stats.ts';
import { interleaved, medianOf, startStreamOrigin, streamOnce } from '../lib/stream.ts';

/** The size, whatever --rows says (the emulator holds every document in memory). */
const DOCUMENTS = 1_000_000;
const RSS_GOAL_MIB = 200;
const RATE_GOAL = 0.6;

/** The official driver's own cursor over the collection, each document written as a relaxed EJSON line to /dev/null. */
async function driverToDevNull(uri: string): Promise<{ seconds: number; rowsPerSecond: number; documents: number }> {
  const client = new MongoClient(uri, { directConnection: true });
  const devNull = openSync('/dev/null', 'w');
  const started = performance.now();
  let documents = 0;
  try {
    const cursor = client.db('bench').collection('docs').find({}, { batchSize: 2000 });
    let text = '';
    for await (const document of cursor) {
      text += `${BSON.EJSON.stringify(document, { relaxed: true })}\n`;
      if (++documents % 2000 === 0) {
        writeSync(devNull, text);
        text = '';
      }
    }
    writeSync(devNull, text);
  } finally {
    closeSync(devNull);
    await client.close();
  }
  const seconds = (performance.now() - started) / 1000;
  return { seconds, rowsPerSecond: documents / seconds, documents };
}

/** 1,000,000 documents of a MongoDB collection as `POST /execute_mongo?stream=true&format=ndjson`. */
export const mongoStream: Scenario = {
  name: 'mongo-stream',
  async run(ctx) {
    ctx.log(`loading ${DOCUMENTS.toLocaleString('en-US')} documents into the emulator`);
    const server = await startServer('bench/mongo-server.ts', { BENCH_MONGO_DOCS: String(DOCUMENTS) }, join(ctx.workDir, 'mongo-server.log'));
    const port = Number(new URL(server.url).port);
    const uri = `mongodb://127.0.0.1:${port}/`;
    const origin = await startStreamOrigin(ctx, 'mongo', {});
    let both;
    try {
      await origin.addConnection({ name: 'bench_mongo', db: 'mongodb', host: '127.0.0.1', port, database: 'bench' });
      both = await interleaved(
        ctx.runs,
        async () => {
          const run = await driverToDevNull(uri);
          ctx.log(`  driver cursor: ${Math.round(run.rowsPerSecond).toLocaleString('en-US')} documents/s`);
          if (run.documents !== DOCUMENTS) throw new Error(`the driver read ${run.documents} documents`);
          return run;
        },
        () => streamOnce(ctx, origin, 'stream=true&format=ndjson', { connection_name: 'bench_mongo', collection: 'docs' }, DOCUMENTS, undefined, '/execute_mongo'),
      );
    } finally {
      await origin.stop();
      await server.stop();
    }
    for (const r of both.target) if (r.lines !== DOCUMENTS) throw new Error(`ndjson had ${r.lines} lines, expected ${DOCUMENTS}`);
    const rate = medianOf(both.target, (r) => r.rowsPerSecond);
    const baseRate = medianOf(both.baseline, (r) => r.rowsPerSecond);
    const peak = Math.max(...both.target.map((r) => r.peakRssMiB));
    const idle = both.target[0].idleRssMiB;
    const figures: Figure[] = [
      {
        name: 'throughput',
        value: rate,
        unit: 'documents/s',
        baselineName: "the official driver's cursor, relaxed EJSON lines to /dev/null, in the bench process",
        baseline: baseRate,
        ratio: ratio(rate, baseRate),
        goal: { text: `>= ${RATE_GOAL}`, met: rate / baseRate >= RATE_GOAL },
      },
      {
        name: 'origin peak RSS',
        value: peak,
        unit: 'MiB',
        baselineName: 'origin idle RSS before the first stream',
        baseline: idle,
        ratio: ratio(peak, idle),
        goal: { text: `<= ${RSS_GOAL_MIB} MB`, met: peak <= RSS_GOAL_MIB },
      },
    ];
    return {
      scenario: 'mongo-stream',
      title: `Streaming ${DOCUMENTS.toLocaleString('en-US')} MongoDB documents as NDJSON`,
      method: [
        '`POST /execute_mongo?stream=true&format=ndjson` over a collection of 6-field documents (int, text, double, text, date, a nested document with an array) against a real origin process; the client checks the line count.',
        "The server is the tests' MongoDB wire-protocol emulator (CongoServer from @push.rocks/smartmongo, test/harness/mongo.ts) in a process of its own (bench/mongo-server.ts), not a MongoDB server: none installs here. It materialises a find's whole result in memory, so both sides wait on it alike.",
        `Baseline: the official \`mongodb\` driver's cursor in the bench process, each document written as relaxed EJSON to /dev/null. Baseline and origin runs alternate (${ctx.runs} each); medians. Peak RSS is the origin's, read as in stream-csv.`,
      ],
      figures,
      notes: [],
      samples: both,
    };
  },
};
