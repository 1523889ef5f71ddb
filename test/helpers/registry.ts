// A real container registry on loopback for tests: Debian's `docker-registry` (the CNCF
// distribution registry 2.8), run as a process of the test's own with a config of its own
// (storage in a temporary folder, a free port on 127.0.0.1), optionally with htpasswd auth or as
// a pull-through cache of another registry (the shape of an operator's mirror). The engine treats
// 127.0.0.0/8 registries as insecure, so plain HTTP pushes and pulls work. scripts/setup.sh
// installs the package (and apache2-utils for htpasswd).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, rmSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { promisify } from 'node:util';
import { type Docker, extractTar, getDocker } from '@osmosis/sandbox';

const run = promisify(execFile);

export const REGISTRY_BIN = process.env.OSMOSIS_TEST_REGISTRY_BIN ?? '/usr/bin/docker-registry';

export interface TestRegistry {
  /** `127.0.0.1:PORT`, the registry part of references */
  host: string;
  url: string;
  stop(): Promise<void>;
}

export interface RegistryOptions {
  /** require this user and password (htpasswd with bcrypt) */
  auth?: { user: string; password: string };
  /** serve as a pull-through cache of this registry URL */
  proxyOf?: string;
}

/** A free TCP port on 127.0.0.1 (asked of the kernel, then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startRegistry(options: RegistryOptions = {}): Promise<TestRegistry> {
  const dir = await mkdtemp(path.join(tmpdir(), 'osmosis-registry-'));
  const port = await freePort();
  const lines = [
    'version: 0.1',
    'log:',
    '  level: error',
    '  accesslog:',
    '    disabled: true',
    'storage:',
    '  filesystem:',
    `    rootdirectory: ${dir}/data`,
    '  delete:',
    '    enabled: true',
    'http:',
    `  addr: 127.0.0.1:${port}`,
    `  secret: ${randomUUID()}`,
  ];
  if (options.auth) {
    const { stdout } = await run('htpasswd', ['-nbB', options.auth.user, options.auth.password]);
    await writeFile(path.join(dir, 'htpasswd'), stdout);
    lines.push('auth:', '  htpasswd:', '    realm: osmosis-test', `    path: ${dir}/htpasswd`);
  }
  if (options.proxyOf) lines.push('proxy:', `  remoteurl: ${options.proxyOf}`);
  await writeFile(path.join(dir, 'config.yml'), `${lines.join('\n')}\n`);
  const child: ChildProcess = spawn(REGISTRY_BIN, ['serve', path.join(dir, 'config.yml')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    await rm(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`docker-registry exited (${child.exitCode}): ${stderr}`);
    }
    const status = await fetch(`${url}/v2/`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200 || status === 401) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`docker-registry did not answer on ${url}: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { host: `127.0.0.1:${port}`, url, stop };
}

function follow(docker: Docker, stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (error: Error | null) => (error ? reject(error) : resolve()),
      (event: { error?: string }) => {
        if (event.error) reject(new Error(event.error));
      },
    );
  });
}

interface SavedImage {
  config: Buffer;
  /** layer files (uncompressed tars) with their sha256 digest and size */
  layers: { file: string; digest: string; size: number }[];
}

const saved = new Map<string, Promise<SavedImage>>();
let saveDir: Promise<string> | undefined;

/** `docker save` of one image, its layers kept as files (once per image id and process). */
async function saveImage(docker: Docker, source: string): Promise<SavedImage> {
  const id = (await docker.getImage(source).inspect()).Id;
  let pending = saved.get(id);
  if (!pending) {
    pending = (async () => {
      saveDir ??= mkdtemp(path.join(tmpdir(), 'osmosis-saved-')).then((made) => {
        process.once('exit', () => rmSync(made, { recursive: true, force: true }));
        return made;
      });
      const dir = path.join(await saveDir, id.replace(/^sha256:/, ''));
      await extractTar(await docker.getImage(id).get(), dir, { maxBytes: 4 * 1024 ** 3 });
      const [entry] = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as {
        Config: string;
        Layers: string[];
      }[];
      const layers = [];
      for (const name of entry!.Layers) {
        const file = path.join(dir, name);
        const hash = createHash('sha256');
        for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
        layers.push({ file, digest: `sha256:${hash.digest('hex')}`, size: (await stat(file)).size });
      }
      return { config: await readFile(path.join(dir, entry!.Config)), layers };
    })();
    saved.set(id, pending);
  }
  return pending;
}

/**
 * Pushes a local image to a registry under `target` (`127.0.0.1:PORT/alexgshaw/x:20251031`)
 * through the registry's HTTP API, layers uncompressed (a push through the engine gzips every
 * layer, minutes of CPU on a busy 2-core machine). The engine then has the content but not the
 * pushed name. Returns the manifest digest the registry answered.
 */
export async function pushImage(
  source: string,
  target: string,
  auth?: { user: string; password: string },
  docker: Docker = getDocker(),
): Promise<string> {
  const image = await saveImage(docker, source);
  const colon = target.lastIndexOf(':');
  const registry = target.split('/')[0]!;
  const name = target.slice(registry.length + 1, colon);
  const tag = target.slice(colon + 1);
  const base = `http://${registry}/v2/${name}`;
  const headers: Record<string, string> = auth
    ? { authorization: `Basic ${Buffer.from(`${auth.user}:${auth.password}`).toString('base64')}` }
    : {};
  const upload = async (
    digest: string,
    body: () => Promise<Buffer | NodeJS.ReadableStream>,
    size: number,
  ) => {
    if ((await fetch(`${base}/blobs/${digest}`, { method: 'HEAD', headers })).ok) return;
    const start = await fetch(`${base}/blobs/uploads/`, { method: 'POST', headers });
    const location = start.headers.get('location');
    if (start.status !== 202 || !location) throw new Error(`upload to ${target} refused (${start.status})`);
    const url = new URL(location, `http://${registry}`);
    url.searchParams.set('digest', digest);
    const content = await body();
    const res = await fetch(url, {
      method: 'PUT',
      headers: { ...headers, 'content-type': 'application/octet-stream', 'content-length': String(size) },
      body: Buffer.isBuffer(content) ? content : (Readable.toWeb(content as never) as never),
      duplex: 'half',
    } as RequestInit);
    if (res.status !== 201)
      throw new Error(`blob upload to ${target} failed (${res.status}): ${await res.text()}`);
  };
  for (const layer of image.layers)
    await upload(layer.digest, async () => createReadStream(layer.file), layer.size);
  const configDigest = `sha256:${createHash('sha256').update(image.config).digest('hex')}`;
  await upload(configDigest, async () => image.config, image.config.length);
  const manifest = JSON.stringify({
    schemaVersion: 2,
    mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
    config: {
      mediaType: 'application/vnd.docker.container.image.v1+json',
      size: image.config.length,
      digest: configDigest,
    },
    layers: image.layers.map((l) => ({
      mediaType: 'application/vnd.docker.image.rootfs.diff.tar',
      size: l.size,
      digest: l.digest,
    })),
  });
  const put = await fetch(`${base}/manifests/${tag}`, {
    method: 'PUT',
    headers: { ...headers, 'content-type': 'application/vnd.docker.distribution.manifest.v2+json' },
    body: manifest,
  });
  const digest = put.headers.get('docker-content-digest');
  if (put.status !== 201 || !digest)
    throw new Error(`manifest of ${target} refused (${put.status}): ${await put.text()}`);
  return digest;
}

/** Removes every local name of these references that exists (only names a test made). */
export async function removeLocalNames(
  names: readonly string[],
  docker: Docker = getDocker(),
): Promise<void> {
  for (const name of names) {
    await docker
      .getImage(name)
      .remove({ noprune: false })
      .catch(() => undefined);
  }
}

/**
 * A TCP listener on loopback that records every connection made to it and answers nothing a
 * registry would: the proof that nothing a task names makes the engine connect where the policy
 * did not allow.
 */
export interface Tripwire {
  port: number;
  host: string;
  connections(): number;
  close(): Promise<void>;
}

export async function startTripwire(): Promise<Tripwire> {
  let count = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    count += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.end('HTTP/1.1 500 tripwire\r\ncontent-length: 0\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    host: `127.0.0.1:${port}`,
    connections: () => count,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Imports an image of one layer holding `bytes` of random data (and nothing else) under `name`,
 * so a pull of it downloads that much: the engine has no layer of it until it is pulled.
 */
export async function importRandomImage(
  name: string,
  bytes: number,
  docker: Docker = getDocker(),
): Promise<void> {
  const { packFiles } = await import('@osmosis/sandbox');
  const { randomBytes } = await import('node:crypto');
  const tar = packFiles([{ path: '/random.bin', content: randomBytes(bytes) }]);
  const colon = name.lastIndexOf(':');
  const stream = await docker.importImage(tar, { repo: name.slice(0, colon), tag: name.slice(colon + 1) });
  await follow(docker, stream);
}

/**
 * An HTTP proxy on loopback in front of a registry that counts the manifest requests it
 * forwards, per repository path: how many pulls reached the registry. With `bytesPerSecond`, each
 * answer's body is sent no faster than that (a slow registry: a pull whose progress can be seen).
 */
export interface CountingProxy {
  host: string;
  manifestRequests(repository: string): number;
  close(): Promise<void>;
}

/** A stream that lets bytes through no faster than `bytesPerSecond`. */
function throttled(bytesPerSecond: number): Transform {
  const started = Date.now();
  let sent = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      sent += chunk.length;
      const due = started + (sent / bytesPerSecond) * 1000;
      setTimeout(() => done(null, chunk), Math.max(0, due - Date.now()));
    },
  });
}

export async function startCountingProxy(
  target: string,
  options: { bytesPerSecond?: number } = {},
): Promise<CountingProxy> {
  const http = await import('node:http');
  const counts = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const m = /^\/v2\/(.+)\/manifests\//.exec(req.url ?? '');
    if (m) counts.set(m[1]!, (counts.get(m[1]!) ?? 0) + 1);
    const upstream = http.request(
      `http://${target}${req.url}`,
      { method: req.method, headers: { ...req.headers, host: target } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        if (options.bytesPerSecond) answer.pipe(throttled(options.bytesPerSecond)).pipe(res);
        else answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    host: `127.0.0.1:${port}`,
    manifestRequests: (repository) => counts.get(repository) ?? 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
