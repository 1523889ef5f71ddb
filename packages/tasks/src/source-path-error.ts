/** A path or link of a source that reaches outside where it may; `file` is relative to the source root. */
export class SourcePathError extends Error {
  readonly file: string;
  constructor(file: string, message: string) {
    super(message);
    this.name = 'SourcePathError';
    this.file = file;
  }
}

/** `error` with its file named from `dir` (a task's folder in its source), when it names one first. */
export function underFolder(error: unknown, dir: string): unknown {
  if (!(error instanceof SourcePathError) || !dir || !error.message.startsWith(error.file)) return error;
  return new SourcePathError(`${dir}/${error.file}`, `${dir}/${error.message}`);
}
