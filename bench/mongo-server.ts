/**
 * The MongoDB wire-protocol server of mongo-stream: the tests' emulator
 * (test/harness/mongo.ts, CongoServer from @push.rocks/smartmongo) holding
 * BENCH_MONGO_DOCS documents in `bench.docs`, written straight into its
 * storage. Its own process, so serving a cursor never shares an event loop
 * with the bench's baseline reader. Prints `{"port":N}` and `listening` once
 * the documents are in; SIGTERM stops it.
 */
import { startMongo } from '../test/harness/mongo.ts';

const count = Number(process.env.BENCH_MONGO_DOCS);
const mongo = await startMongo();
const storage = mongo.storage();
const started = Date.now();
for (let from = 0; from < count; from += 50_000) {
  const batch = [];
  for (let i = from + 1; i <= Math.min(count, from + 50_000); i++) {
    batch.push({ i, label: `row ${i}`, value: i * 1.5, tag: i % 2 === 0 ? 'even' : 'odd', at: new Date(1_700_000_000_000 + i * 1000), nested: { k: i % 10, list: [i, 'x'] } });
  }
  await storage.insertMany('bench', 'docs', batch);
}
process.once('SIGTERM', () => {
  mongo.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
console.log(JSON.stringify({ port: mongo.port, seconds: (Date.now() - started) / 1000, message: 'MongoDB emulator listening' }));
