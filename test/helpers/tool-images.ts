// Images a tool bundle must run in, made here with no registry and no network: the base image
// (Debian, with tmux), Debian with tmux, apt and dpkg removed (nothing to install with), and an
// image with no C library at all, FROM scratch with Debian's static busybox (this machine cannot
// pull Alpine; busybox is what such an image has: a shell and coreutils, no glibc, no loader).

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readElf } from '@osmosis/harness';
import { ensureImage } from '@osmosis/sandbox';

export const BASE_IMAGE = process.env.OSMOSIS_BASE_IMAGE ?? 'osmosis/base:bookworm';
const LABELS = { 'osmosis.test-image': 'agent-tools' };
const BUSYBOX = '/bin/busybox';

async function build(
  name: string,
  files: Record<string, string>,
  prepare?: (dir: string) => Promise<void>,
  /** Host files `prepare` copies in: their content is part of the image's identity. */
  inputs: string[] = [],
) {
  const dir = await mkdtemp(path.join(tmpdir(), `osmosis-${name}-`));
  try {
    for (const [file, content] of Object.entries(files)) await writeFile(path.join(dir, file), content);
    await prepare?.(dir);
    const hash = createHash('sha256').update(`osmosis-tools-test-${name}-v1`);
    for (const [file, content] of Object.entries(files)) hash.update(file).update(content);
    for (const input of inputs) hash.update(await readFile(input));
    const built = await ensureImage({ contextDir: dir, digest: hash.digest('hex'), labels: LABELS });
    return built.image;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Debian without tmux and without any way to install it. */
export function ensureNoAptImage(): Promise<string> {
  return build('no-apt', {
    Dockerfile: `FROM ${BASE_IMAGE}\nRUN rm -f /usr/bin/tmux /usr/bin/apt /usr/bin/apt-get /usr/bin/apt-cache /usr/bin/dpkg /usr/bin/dpkg-deb && rm -rf /var/lib/dpkg /etc/apt\n`,
  });
}

/** Debian as above, and no Python anywhere (a Python agent's bundle brings its own). */
export async function ensureNoPythonImage(): Promise<string> {
  return build('no-python', {
    Dockerfile: `FROM ${await ensureNoAptImage()}\nRUN rm -rf /usr/bin/python* /usr/lib/python3* /usr/local/bin/python* /usr/local/lib/python3*\n`,
  });
}

/**
 * No Python and no apt, with the worker host's git (Debian's, its libraries are the base image's):
 * OpenHands' local runtime starts with `git config` and needs the image's git.
 */
export async function ensureNoPythonGitImage(): Promise<string> {
  const git = '/usr/bin/git';
  return build(
    'no-python-git',
    { Dockerfile: `FROM ${await ensureNoPythonImage()}\nCOPY git /usr/bin/git\nRUN git --version\n` },
    (dir) => copyFile(git, path.join(dir, 'git')),
    [git],
  );
}

/** No glibc, no loader: a static busybox FROM scratch (`apt-get install busybox-static` on the test machine). */
export async function ensureNoGlibcImage(): Promise<string> {
  if (!existsSync(BUSYBOX) || (await readElf(BUSYBOX)).interpreter !== null)
    throw new Error(
      `${BUSYBOX} is missing or not static: install Debian's busybox-static on this machine (scripts/setup.sh does)`,
    );
  return build(
    'no-glibc',
    { Dockerfile: 'FROM scratch\nCOPY rootfs/ /\nENV PATH=/bin\nRUN chmod 1777 /tmp /logs/agent\n' },
    async (dir) => {
      const root = path.join(dir, 'rootfs');
      for (const d of ['bin', 'etc', 'tmp', 'root', 'logs/agent'])
        await mkdir(path.join(root, d), { recursive: true });
      await copyFile(BUSYBOX, path.join(root, 'bin/busybox'));
      const applets = execFileSync(BUSYBOX, ['--list'], { encoding: 'utf8' }).split('\n').filter(Boolean);
      for (const applet of applets)
        if (applet !== 'busybox') await symlink('busybox', path.join(root, 'bin', applet));
      await writeFile(
        path.join(root, 'etc/passwd'),
        'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/tmp:/bin/sh\n',
      );
      await writeFile(path.join(root, 'etc/group'), 'root:x:0:\nnogroup:x:65534:\n');
    },
    [BUSYBOX],
  );
}
