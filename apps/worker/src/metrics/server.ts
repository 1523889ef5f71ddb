// The worker's /metrics endpoint: a small HTTP server of its own (the worker serves nothing else),
// on OSMOSIS_WORKER_METRICS_HOST:OSMOSIS_WORKER_METRICS_PORT. Protected by the bind address
// (loopback by default) and, when OSMOSIS_METRICS_TOKEN is set, a bearer token — required for
// any other address, so the worker refuses to expose its metrics to a network without one.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { isIP } from 'node:net';
import type { Registry } from 'prom-client';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** True when `header` is `Bearer <token>` (compared in constant time). */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer (.+)$/i.exec(header ?? '')?.[1] ?? '';
  return timingSafeEqual(digest(given), digest(token));
}

export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

export interface MetricsServerOptions {
  host: string;
  port: number;
  token?: string | undefined;
  registry: Registry;
}

export async function startMetricsServer(
  options: MetricsServerOptions,
): Promise<{ server: Server; port: number }> {
  if (!options.token && !isLoopbackHost(options.host))
    throw new Error(
      `OSMOSIS_WORKER_METRICS_HOST=${options.host} would expose /metrics beyond this host without a token: set OSMOSIS_METRICS_TOKEN (16+ characters) too, or listen on 127.0.0.1`,
    );
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response
        .writeHead(404, { 'content-type': 'text/plain' })
        .end('not found: the worker serves GET /metrics only\n');
      return;
    }
    if (options.token && !bearerMatches(request.headers.authorization, options.token)) {
      response
        .writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' })
        .end('send Authorization: Bearer <OSMOSIS_METRICS_TOKEN>\n');
      return;
    }
    options.registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': options.registry.contentType }).end(text),
      (error: Error) =>
        response
          .writeHead(500, { 'content-type': 'text/plain' })
          .end(`metrics could not be collected: ${error.message}\n`),
    );
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : options.port };
}
