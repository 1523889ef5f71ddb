// The benchmark of the fragment test: each task puts the agent's secret into one kind of text the
// platform turns into a message (a reward file it cannot read, a verifier's output and a build log
// long enough to be cut), and the search for any six characters of a secret anywhere.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

const TASK_TOML = `schema_version = "1.1"

[verifier]
timeout_sec = 120.0

[agent]
timeout_sec = 60.0

[environment]
build_timeout_sec = 300.0
cpus = 1
memory_mb = 512
allow_internet = false
`;

/** What each task's verifier does with the value $V the agent left in /tmp/v. */
const VERIFIERS: Record<string, string> = {
  // the reported leak: JSON.parse's message quoted ~10 characters around the unquoted value
  'bad-json': `printf '{"reward": 1, "x": %s}' "$V" > /logs/verifier/reward.json`,
  'json-string': `printf '{"reward": "%s"}' "$V" > /logs/verifier/reward.json`,
  'json-keys': `printf '{"a %s": 1, "b": 0}' "$V" > /logs/verifier/reward.json`,
  'bad-txt': `printf 'leak %s\\n' "$V" > /logs/verifier/reward.txt`,
  // far more output than is kept: the cut between head and tail lands inside a copy of $V
  'verifier-output': `python3 -c 'import sys; v=sys.argv[1]; sys.stdout.write(v*(400000//len(v)+7)); sys.stderr.write(v*(300000//len(v)+3))' "$V"; exit 3`,
  'build-log': 'echo \'{"reward": 1}\' > /logs/verifier/reward.json',
};

/** The value in a form no search looks for (each character's code plus one), decoded in the image. */
const shifted = (value: string) => [...value].map((c) => (c.codePointAt(0) as number) + 1).join(',');

/**
 * One task per entry of VERIFIERS. `build-log`'s image build prints `buildValue` over and over,
 * past the build log's cap, so the log is cut inside a copy of it. The benchmark requires both
 * secrets, so every attempt holds both, whichever of them builds the image.
 */
export async function writeFragmentBenchmark(root: string, buildValue: string): Promise<string[]> {
  await writeFile(
    path.join(root, 'benchmark.toml'),
    'key = "fragments"\nname = "Secret fragments"\ndefault_harness = "oracle"\npass_threshold = 1.0\nrequired_secret_names = ["PLANT_A", "PLANT_B"]\n',
  );
  for (const [name, verify] of Object.entries(VERIFIERS)) {
    const dir = path.join(root, name);
    for (const sub of ['environment', 'solution', 'tests'])
      await mkdir(path.join(dir, sub), { recursive: true });
    await writeFile(path.join(dir, 'task.toml'), TASK_TOML);
    await writeFile(path.join(dir, 'instruction.md'), 'Hand your secret to the verifier.\n');
    const build =
      name === 'build-log'
        ? `RUN python3 -c 'import sys; v="".join(chr(int(x)-1) for x in sys.argv[1].split(",")); sys.stdout.write(v*(300000//len(v)+5)+"\\n")' '${shifted(buildValue)}'\n`
        : '';
    await writeFile(
      path.join(dir, 'environment', 'Dockerfile'),
      `FROM osmosis/base:bookworm\n${build}WORKDIR /app\n`,
    );
    await writeFile(
      path.join(dir, 'solution', 'solve.sh'),
      `#!/bin/bash\nprintf '%s' "\${PLANT_A:-$PLANT_B}" > /tmp/v\necho "agent done"\n`,
    );
    await writeFile(path.join(dir, 'tests', 'test.sh'), `#!/bin/bash\nV="$(cat /tmp/v)"\n${verify}\n`);
  }
  return Object.keys(VERIFIERS);
}

/** A random value of `length` letters and digits that starts with a letter. */
export function randomValue(length: number, random: (n: number) => Buffer): string {
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const alphabet = `${letters}0123456789`;
  // A letter first: a value that began with digits would parse as a number in the bad-JSON
  // task, and the parser's message would name a different column.
  return [...random(length)]
    .map((b, i) => (i === 0 ? letters[b % letters.length] : alphabet[b % alphabet.length]))
    .join('');
}

/** Every `<where>: <piece> of <label>` where six consecutive characters of a value show up. */
export function findPieces(
  haystacks: readonly { where: string; text: string }[],
  values: Record<string, string>,
  size = 6,
): string[] {
  const hits: string[] = [];
  for (const [label, value] of Object.entries(values)) {
    const pieces = new Set(
      Array.from({ length: value.length - size + 1 }, (_, i) => value.slice(i, i + size)),
    );
    for (const hay of haystacks)
      for (const piece of pieces)
        if (hay.text.includes(piece)) hits.push(`${hay.where}: "${piece}" of ${label}`);
  }
  return hits;
}
