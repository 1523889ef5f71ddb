// The network namespace a real-CLI sandbox joins (`NetworkMode: container:<this>`). The
// container itself has no network (`none`): only loopback, so nothing in it can leave the
// machine. In it this script:
//   - relays 127.0.0.1:MODEL_PORT to the fake model server, which runs in the test process and
//     listens on a unix socket in a folder bind-mounted at /fake;
//   - answers every DNS question (UDP 127.0.0.1:53, written into /etc/resolv.conf, which the
//     sandbox shares) with 127.0.0.1 and records the name: a CLI that looks up a telemetry or
//     update host is seen, and its connection lands on a trap below;
//   - traps TCP connections on the usual outbound ports (80, 443, …) and records them with the
//     TLS server name when the client sends one.
// Every observation is one JSON line in /fake/relay.log. Plain JavaScript: it runs on the test
// image's Node with no build step.
import dgram from 'node:dgram';
import { appendFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';

const FAKE_DIR = '/fake';
const MODEL_SOCKET = `${FAKE_DIR}/model.sock`;
const LOG = `${FAKE_DIR}/relay.log`;
const MODEL_PORT = Number(process.env.MODEL_PORT ?? 8080);
const TRAP_PORTS = [80, 443, 8443, 4317, 4318, 9418];

const log = (entry) => appendFileSync(LOG, `${JSON.stringify({ at: Date.now(), ...entry })}\n`);

// ── model relay ─────────────────────────────────────────────────────────────────────────────
const relay = net.createServer((client) => {
  const upstream = net.connect(MODEL_SOCKET);
  client.pipe(upstream).pipe(client);
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on('error', close);
  upstream.on('error', close);
});

// ── DNS: every A question → 127.0.0.1, others → no answer; every name recorded ─────────────
function questionOf(msg) {
  let offset = 12;
  const labels = [];
  while (offset < msg.length) {
    const len = msg[offset];
    if (len === 0) break;
    labels.push(msg.subarray(offset + 1, offset + 1 + len).toString('latin1'));
    offset += len + 1;
  }
  const end = offset + 1;
  return { name: labels.join('.'), type: msg.readUInt16BE(end), questionEnd: end + 4 };
}

const dns = dgram.createSocket('udp4');
dns.on('message', (msg, rinfo) => {
  if (msg.length < 17) return;
  let q;
  try {
    q = questionOf(msg);
  } catch {
    return;
  }
  log({ kind: 'dns', name: q.name, type: q.type });
  const header = Buffer.alloc(12);
  msg.copy(header, 0, 0, 2); // id
  header.writeUInt16BE(0x8180, 2); // response, recursion desired + available, NOERROR
  header.writeUInt16BE(1, 4); // one question
  const answer = q.type === 1;
  header.writeUInt16BE(answer ? 1 : 0, 6);
  const parts = [header, msg.subarray(12, q.questionEnd)];
  if (answer) {
    const rr = Buffer.alloc(16);
    rr.writeUInt16BE(0xc00c, 0); // name: pointer to the question
    rr.writeUInt16BE(1, 2); // A
    rr.writeUInt16BE(1, 4); // IN
    rr.writeUInt32BE(5, 6); // TTL
    rr.writeUInt16BE(4, 10);
    Buffer.from([127, 0, 0, 1]).copy(rr, 12);
    parts.push(rr);
  }
  dns.send(Buffer.concat(parts), rinfo.port, rinfo.address);
});

// ── traps ───────────────────────────────────────────────────────────────────────────────────
/** The server name of a TLS ClientHello, when the first bytes are one. */
function serverName(buf) {
  try {
    if (buf[0] !== 0x16) return undefined;
    let p = 5 + 4 + 2 + 32; // record header, handshake header, version, random
    p += 1 + buf[p]; // session id
    p += 2 + buf.readUInt16BE(p); // cipher suites
    p += 1 + buf[p]; // compression methods
    const end = p + 2 + buf.readUInt16BE(p);
    p += 2;
    while (p + 4 <= end) {
      const type = buf.readUInt16BE(p);
      const len = buf.readUInt16BE(p + 2);
      if (type === 0) return buf.subarray(p + 9, p + 4 + len).toString('latin1');
      p += 4 + len;
    }
  } catch {
    // not a ClientHello
  }
  return undefined;
}

const traps = TRAP_PORTS.map((port) =>
  net.createServer((socket) => {
    socket.once('data', (first) => {
      const sni = serverName(first);
      const text = first.subarray(0, 200).toString('latin1');
      log({ kind: 'connection', port, ...(sni ? { sni } : { head: text.split('\r\n')[0] }) });
      socket.destroy();
    });
    socket.setTimeout(2000, () => {
      log({ kind: 'connection', port });
      socket.destroy();
    });
    socket.on('error', () => {});
  }),
);

writeFileSync('/etc/resolv.conf', 'nameserver 127.0.0.1\noptions ndots:0 attempts:1 timeout:1\n');
let pending = 2 + traps.length;
const ready = () => {
  pending -= 1;
  if (pending === 0) log({ kind: 'ready', modelPort: MODEL_PORT });
};
relay.listen(MODEL_PORT, '127.0.0.1', ready);
dns.bind(53, '127.0.0.1', ready);
for (const [i, trap] of traps.entries()) trap.listen(TRAP_PORTS[i], '127.0.0.1', ready);
