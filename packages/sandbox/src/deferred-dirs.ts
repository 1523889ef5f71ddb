// Directories a sandbox must have before anything of the platform's runs or lands in it (the
// /logs folders), made without an engine call of their own where possible: they travel in the
// first upload's tar (putFiles, putDir), or one root exec makes them before the first exec. A
// pre-start archive upload costs the engine a mount of the stopped container's file system and a
// helper process; this costs nothing when an upload comes first.
import type { DirectoryEntry } from './tar.ts';

/** As root: `mkdir -p` and `chmod` each (path, octal mode) pair given as arguments. */
const MAKE_DIRECTORIES =
  'while [ $# -gt 1 ]; do mkdir -p "$1" && chmod "$2" "$1" || exit 1; shift 2; done; echo made';

export class DeferredDirectories {
  #pending: DirectoryEntry[] = [];
  #making: Promise<void> | undefined;

  add(dirs: readonly DirectoryEntry[]): void {
    this.#pending.push(...dirs);
  }

  /** Makes the pending directories with a root script (`run(script, args)` → its stdout, stderr). */
  async make(
    run: (script: string, args: string[]) => Promise<{ stdout: string; stderr: string }>,
  ): Promise<void> {
    if (this.#pending.length === 0) return;
    this.#making ??= (async () => {
      const dirs = [...this.#pending];
      const args = dirs.flatMap((d) => [d.path, (d.mode ?? 0o755).toString(8)]);
      const { stdout, stderr } = await run(MAKE_DIRECTORIES, args);
      if (!stdout.includes('made')) {
        const what = dirs.map((d) => d.path).join(', ');
        throw new Error(`could not create ${what}: ${stderr.trim().slice(-300) || 'no output'}`);
      }
      this.#settle(dirs);
    })().finally(() => {
      this.#making = undefined;
    });
    await this.#making;
  }

  /** Runs an upload with the pending directories in its tar; they count as made once it succeeded. */
  async upload(put: (dirs: DirectoryEntry[]) => Promise<unknown>): Promise<void> {
    await this.#making?.catch(() => undefined);
    const dirs = [...this.#pending];
    await put(dirs);
    this.#settle(dirs);
  }

  #settle(made: readonly DirectoryEntry[]): void {
    this.#pending = this.#pending.filter((d) => !made.includes(d));
  }
}
