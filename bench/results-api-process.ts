// The API of bench/results-scale.ts in a process of its own, so that the bench can read this
// process's resident memory (/proc/<pid>/status) while it serves results.csv, apart from the
// bench's own seeding and statistics. Prints `listening <port>` once it accepts requests; exits
// on SIGTERM.
//
//   node bench/results-api-process.ts <database url> <redis url>
import { randomBytes } from 'node:crypto';
import { createDb } from '@osmosis/db';
import { buildApp } from '../apps/api/src/app.ts';
import { createRedis } from '../packages/queues/src/index.ts';

const [databaseUrl, redisUrl] = process.argv.slice(2);
if (!databaseUrl || !redisUrl) throw new Error('usage: results-api-process.ts <database url> <redis url>');
const db = createDb(databaseUrl, 10);
const redis = createRedis(redisUrl);
const app = await buildApp({
  db,
  redis,
  config: { queuePrefix: `bench-${randomBytes(3).toString('hex')}` },
  logLevel: 'silent',
});
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
process.on('SIGTERM', () => {
  void app
    .close()
    .then(() => db.$disconnect())
    .finally(() => {
      redis.disconnect();
      process.exit(0);
    });
});
