// The tasks of the platform throughput bench, written as benchmark folders to upload.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const BENCH_IMAGE = 'osmosis/base:bookworm';

/** The trivial task's verifier (the bare side runs the same script). */
export const TRIVIAL_TEST = '#!/bin/bash\necho 0 > /logs/verifier/reward.txt\n';

/** The sidecar of the compose task (python3-minimal has no http.server): GET answers a token. */
export const SIDECAR_SERVER = `import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 8000)); s.listen(16)
while True:
    c, _ = s.accept(); c.recv(4096); c.sendall(b"HTTP/1.0 200 OK\\r\\n\\r\\ntoken\\n"); c.close()
`;
/** The compose task's verifier: asks the sidecar, writes reward 0 (the nop agent did nothing). */
export const SIDECAR_VERIFIER = `mkdir -p /logs/verifier
served=$(exec 3<>/dev/tcp/web/8000 && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3) || true
echo "served: \${served:-nothing}"
echo 0 > /logs/verifier/reward.txt
`;

/** A compose task: `main` and a `web` sidecar on the attempt's network, internet off. */
export function composeTaskDir(root: string): string {
  const dir = path.join(root, 'bench-compose', 'sidecar');
  for (const sub of ['environment/web', 'tests', 'solution'])
    mkdirSync(path.join(dir, sub), { recursive: true });
  writeFileSync(
    path.join(dir, 'task.toml'),
    'version = "1.0"\n[metadata]\ncategory = "bench"\ndifficulty = "easy"\n[agent]\ntimeout_sec = 60\n[verifier]\ntimeout_sec = 60\n[environment]\nallow_internet = false\n',
  );
  writeFileSync(path.join(dir, 'instruction.md'), 'Do nothing.\n');
  writeFileSync(path.join(dir, 'environment', 'Dockerfile'), `FROM ${BENCH_IMAGE}\nWORKDIR /app\n`);
  writeFileSync(
    path.join(dir, 'environment', 'docker-compose.yaml'),
    'services:\n  main:\n    depends_on:\n      - web\n  web:\n    build:\n      context: ./web\n    expose:\n      - "8000"\n',
  );
  writeFileSync(
    path.join(dir, 'environment', 'web', 'Dockerfile'),
    `FROM ${BENCH_IMAGE}\nCOPY server.py /srv/server.py\nCMD ["python3", "/srv/server.py"]\n`,
  );
  writeFileSync(path.join(dir, 'environment', 'web', 'server.py'), SIDECAR_SERVER);
  writeFileSync(path.join(dir, 'tests', 'test.sh'), `#!/bin/bash\n${SIDECAR_VERIFIER}`);
  writeFileSync(path.join(dir, 'solution', 'solve.sh'), '#!/bin/bash\ntrue\n');
  return path.join(root, 'bench-compose');
}

/** A trivial task: nothing to build beyond the base image, a verifier that writes reward 0. */
export function trivialTaskDir(root: string): string {
  const dir = path.join(root, 'bench-tasks', 'trivial');
  for (const sub of ['environment', 'tests', 'solution']) mkdirSync(path.join(dir, sub), { recursive: true });
  writeFileSync(
    path.join(dir, 'task.toml'),
    'version = "1.0"\n[metadata]\ncategory = "bench"\ndifficulty = "easy"\n[agent]\ntimeout_sec = 60\n[verifier]\ntimeout_sec = 60\n',
  );
  writeFileSync(path.join(dir, 'instruction.md'), 'Do nothing.\n');
  writeFileSync(path.join(dir, 'environment', 'Dockerfile'), `FROM ${BENCH_IMAGE}\nWORKDIR /app\n`);
  writeFileSync(path.join(dir, 'tests', 'test.sh'), TRIVIAL_TEST);
  writeFileSync(path.join(dir, 'solution', 'solve.sh'), '#!/bin/bash\ntrue\n');
  return path.join(root, 'bench-tasks');
}
