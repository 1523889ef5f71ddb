// A client that sends its body a byte at a time (slowloris on the body) must not hold a
// connection, an upload's storage file and the handler for ever: past OSMOSIS_API_REQUEST_TIMEOUT_MS
// the request is answered 408 and its connection closed, and the API keeps answering others.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';
import { startTestApi, type TestApi } from './testing.ts';

let api: TestApi;
let token: string;

beforeAll(async () => {
  api = await startTestApi({ config: { requestTimeoutMs: 1500 } });
  token = (await api.seedWorkspace()).token;
});

afterAll(async () => {
  await api?.close();
});

/** Sends the head of a request and then one byte of its body every 200 ms; resolves with what the server answered. */
function trickle(path: string, contentType: string, length: number): Promise<string> {
  const { port } = new URL(api.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    let timer: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${token}\r\ncontent-type: ${contentType}\r\ncontent-length: ${length}\r\n\r\n`,
      );
      let sent = 0;
      timer = setInterval(() => {
        if (sent < length - 1 && !socket.destroyed) {
          socket.write('x');
          sent += 1;
        }
      }, 200);
    });
    socket.on('data', (chunk) => {
      answer += chunk.toString();
    });
    socket.on('close', () => {
      clearInterval(timer);
      resolve(answer);
    });
    socket.on('error', (error) => {
      clearInterval(timer);
      if (answer) resolve(answer);
      else reject(error);
    });
  });
}

describe('slow request bodies', () => {
  it('answers a JSON body that never completes with 408 and closes the connection', async () => {
    const answer = await trickle('/v1/secrets', 'application/json', 10_000);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect((await api.request('GET', '/v1/me', { token })).status).toBe(200);
  });

  it('answers an archive upload that never completes with 408, and keeps serving', async () => {
    const answer = await trickle('/v1/benchmarks/archive?key=slow', 'application/gzip', 1_000_000);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect((await api.request('GET', '/v1/benchmarks', { token })).status).toBe(200);
  });

  it('reads the timeout from OSMOSIS_API_REQUEST_TIMEOUT_MS (default 10 minutes), refusing nonsense', () => {
    expect(loadConfig({}).requestTimeoutMs).toBe(600_000);
    expect(loadConfig({ OSMOSIS_API_REQUEST_TIMEOUT_MS: '30000' }).requestTimeoutMs).toBe(30_000);
    expect(() => loadConfig({ OSMOSIS_API_REQUEST_TIMEOUT_MS: '0' })).toThrow(
      /OSMOSIS_API_REQUEST_TIMEOUT_MS: must be at least 1000/,
    );
  });
});
