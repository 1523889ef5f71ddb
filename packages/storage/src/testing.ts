// An S3-protocol server on loopback for tests: `s3rver` (npm), a fake S3 that keeps objects in a
// folder and speaks enough of the API for the AWS SDK v3 (PutObject, multipart uploads, ranged
// GetObject, ListObjectsV2, DeleteObjects). The issue accepts such a package for tests; the real
// targets (AWS S3, MinIO, R2) are configured by the same settings.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** s3rver's fixed credentials (it checks request signatures against them). */
export const TEST_S3_ACCESS_KEY_ID = 'S3RVER';
export const TEST_S3_SECRET_ACCESS_KEY = 'S3RVER';

export interface TestS3Server {
  endpoint: string;
  port: number;
  bucket: string;
  /** where the server keeps the bucket's objects (not the platform's data dir) */
  directory: string;
  /** OSMOSIS_* settings that point the platform at this bucket under `prefix` */
  env(prefix?: string): Record<string, string>;
  close(): Promise<void>;
}

export async function startTestS3Server(bucket = 'osmosis-test'): Promise<TestS3Server> {
  const directory = await mkdtemp(path.join(tmpdir(), 'osmosis-s3rver-'));
  const child = spawn(
    process.execPath,
    ['--openssl-legacy-provider', path.join(import.meta.dirname, 's3rver-main.ts')],
    {
      env: { ...process.env, S3RVER_DIRECTORY: directory, S3RVER_BUCKET: bucket },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0] ?? '';
      if (out.includes('\n')) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once('exit', (code) => reject(new Error(`the test S3 server exited (${code}) before listening`)));
    child.once('error', reject);
  });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    port,
    bucket,
    directory,
    env: (prefix = '') => ({
      OSMOSIS_STORAGE: 's3',
      OSMOSIS_S3_ENDPOINT: endpoint,
      OSMOSIS_S3_BUCKET: bucket,
      OSMOSIS_S3_REGION: 'us-east-1',
      OSMOSIS_S3_FORCE_PATH_STYLE: 'true',
      OSMOSIS_S3_PREFIX: prefix,
      OSMOSIS_S3_ACCESS_KEY_ID: TEST_S3_ACCESS_KEY_ID,
      OSMOSIS_S3_SECRET_ACCESS_KEY: TEST_S3_SECRET_ACCESS_KEY,
    }),
    close: async () => {
      child.kill('SIGTERM');
      await exited;
      await rm(directory, { recursive: true, force: true });
    },
  };
}
