// A `git daemon` on loopback serving the bare repositories under a folder, for tests and local
// development (`git://127.0.0.1:PORT/NAME`). Not used by the platform itself.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createConnection, createServer } from 'node:net';

export interface GitDaemon {
  port: number;
  /** `git://127.0.0.1:PORT/` */
  baseUrl: string;
  url(repo: string): string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (Date.now() - start < timeoutMs) {
    if (child.exitCode !== null) throw new Error(`git daemon exited with ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('git daemon did not start');
}

/** Serve every repository under `basePath` (bare or not) read-only on 127.0.0.1. */
export async function startGitDaemon(basePath: string): Promise<GitDaemon> {
  const port = await freePort();
  const child = spawn(
    'git',
    [
      '-c',
      'uploadpack.allowAnySHA1InWant=true',
      '-c',
      'uploadpack.allowFilter=true',
      'daemon',
      '--reuseaddr',
      '--export-all',
      '--listen=127.0.0.1',
      `--port=${port}`,
      `--base-path=${basePath}`,
      basePath,
    ],
    { stdio: 'ignore', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: basePath } },
  );
  await waitForPort(port, child);
  const baseUrl = `git://127.0.0.1:${port}/`;
  return {
    port,
    baseUrl,
    url: (repo) => `${baseUrl}${repo}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Runs git in `cwd` as a test committer (a fixture repository's commits need a name); its output, trimmed. */
export function gitAsCommitter(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();
}
