// The server side of a WebSocket (RFC 6455), just enough for the fake model server to speak the
// OpenAI Responses API over WebSocket, the transport Codex tries first: the client sends
// `{"type":"response.create", …request body…}` as a text message and receives the same events a
// streamed POST /responses carries, one JSON text message each. No extensions are accepted
// (no compression); pings are answered; fragmented messages are joined.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

const HANDSHAKE_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

export interface FakeWebSocket {
  send(text: string): void;
  close(): void;
}

function frame(opcode: number, payload: Buffer): Buffer {
  const len = payload.length;
  const header =
    len < 126
      ? Buffer.from([0x80 | opcode, len])
      : len < 65536
        ? Buffer.from([0x80 | opcode, 126, len >> 8, len & 0xff])
        : (() => {
            const h = Buffer.alloc(10);
            h[0] = 0x80 | opcode;
            h[1] = 127;
            h.writeBigUInt64BE(BigInt(len), 2);
            return h;
          })();
  return Buffer.concat([header, payload]);
}

/**
 * Completes the handshake of an `upgrade` request and calls `onText` for each text message.
 * Returns false (and answers 400) when the request is not a WebSocket handshake.
 */
export function acceptWebSocket(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  onText: (text: string, ws: FakeWebSocket) => void,
): boolean {
  const key = req.headers['sec-websocket-key'];
  if (typeof key !== 'string' || String(req.headers.upgrade).toLowerCase() !== 'websocket') {
    socket.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n');
    return false;
  }
  const accept = createHash('sha1')
    .update(key + HANDSHAKE_GUID)
    .digest('base64');
  socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
  );
  let closed = false;
  const ws: FakeWebSocket = {
    send: (text) => {
      if (!closed) socket.write(frame(0x1, Buffer.from(text, 'utf8')));
    },
    close: () => {
      if (closed) return;
      closed = true;
      socket.end(frame(0x8, Buffer.from([0x03, 0xe8])));
    },
  };
  let buffered = head.length ? Buffer.from(head) : Buffer.alloc(0);
  let fragments: Buffer[] = [];
  const drain = () => {
    for (;;) {
      if (buffered.length < 2) return;
      const fin = (buffered[0]! & 0x80) !== 0;
      const opcode = buffered[0]! & 0x0f;
      const masked = (buffered[1]! & 0x80) !== 0;
      let len = buffered[1]! & 0x7f;
      let offset = 2;
      if (len === 126) {
        if (buffered.length < 4) return;
        len = buffered.readUInt16BE(2);
        offset = 4;
      } else if (len === 127) {
        if (buffered.length < 10) return;
        len = Number(buffered.readBigUInt64BE(2));
        offset = 10;
      }
      const maskEnd = offset + (masked ? 4 : 0);
      if (buffered.length < maskEnd + len) return;
      const payload = Buffer.from(buffered.subarray(maskEnd, maskEnd + len));
      if (masked) {
        const mask = buffered.subarray(offset, maskEnd);
        for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i % 4]!;
      }
      buffered = buffered.subarray(maskEnd + len);
      if (opcode === 0x8) {
        ws.close();
        return;
      }
      if (opcode === 0x9) {
        socket.write(frame(0xa, payload));
        continue;
      }
      if (opcode === 0xa) continue;
      fragments.push(payload);
      if (!fin) continue;
      const message = Buffer.concat(fragments).toString('utf8');
      fragments = [];
      onText(message, ws);
    }
  };
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    drain();
  });
  socket.on('error', () => {
    closed = true;
  });
  socket.on('close', () => {
    closed = true;
  });
  drain();
  return true;
}
