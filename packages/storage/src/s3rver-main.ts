// Child-process entry of the test S3 server (testing.ts): s3rver signs its ListObjectsV2
// continuation tokens with DES, which Node 24's OpenSSL offers only with
// --openssl-legacy-provider, so the server runs in its own process started with that flag
// (and a test can stop it without stopping itself). Prints {"port": N} once listening.
import S3rver from 's3rver';

const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory: process.env.S3RVER_DIRECTORY as string,
  configureBuckets: [{ name: process.env.S3RVER_BUCKET as string }],
});
const { port } = await server.run();
process.stdout.write(`${JSON.stringify({ port })}\n`);
const stop = () => {
  server.close().finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// the parent went away: do not outlive it
process.stdin.on('end', stop);
process.stdin.resume();
