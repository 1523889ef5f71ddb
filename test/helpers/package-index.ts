// A PEP 503 "simple" package index on loopback serving one wheel, and the worker environment that
// points the host's pip at it alone: how the Python tool bundles are tested without PyPI.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export interface PackageIndex {
  /** `http://127.0.0.1:PORT/simple/` */
  url: string;
  /** The paths pip asked for. */
  asked: string[];
  server: Server;
}

/** Serves `wheel` as the only file of `project` (its PEP 503 normalized name). */
export async function startPackageIndex(project: string, wheel: string): Promise<PackageIndex> {
  const data = readFileSync(wheel);
  const file = path.basename(wheel);
  const sha = createHash('sha256').update(data).digest('hex');
  const asked: string[] = [];
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    asked.push(url);
    if (url === `/simple/${project}/`) {
      res.setHeader('content-type', 'text/html');
      res.end(`<!DOCTYPE html><html><body><a href="/files/${file}#sha256=${sha}">${file}</a></body></html>`);
    } else if (url === `/files/${file}`) {
      res.setHeader('content-type', 'application/octet-stream');
      res.end(data);
    } else {
      res.statusCode = 404;
      res.end('not here');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/simple/`, asked, server };
}

/** The worker's environment with pip pointed at `index` alone (this machine's pip.conf left out). */
export function pipEnv(index: string, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, PIP_CONFIG_FILE: '/dev/null', PIP_INDEX_URL: index };
  for (const key of ['PIP_FIND_LINKS', 'PIP_EXTRA_INDEX_URL', 'PIP_CONSTRAINT']) delete env[key];
  return env;
}
