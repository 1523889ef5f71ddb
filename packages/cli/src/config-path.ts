// Where `benchmark submit` reads its config, as the upstream Osmosis CLI 0.3 resolves it
// (osmosis_ai/platform/cli/workspace_directory_contract.py `ensure_context_path`): a relative path
// is taken from the workspace directory (the git repository's top level; outside a repository,
// the current folder), and the file — links resolved — must be a `.toml` under
// `configs/benchmark/` of it.
import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { Context } from './context.ts';
import { CliError } from './errors.ts';

export const BENCHMARK_CONFIG_DIR = 'configs/benchmark';

/** `p` with links resolved as far as it exists (the rest appended as given). */
function resolveLinks(p: string): string {
  const absolute = path.resolve(p);
  let existing = absolute;
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(realpathSync(existing), ...rest);
    } catch {
      const parent = path.dirname(existing);
      if (parent === existing) return absolute;
      rest.unshift(path.basename(existing));
      existing = parent;
    }
  }
}

/** The config file `raw` names, checked to be a `.toml` under `configs/benchmark/` of the workspace directory. */
export function resolveBenchmarkConfigPath(ctx: Context, raw: string): string {
  const workspace = ctx.workspaceDirectory()?.root ?? ctx.cwd;
  const candidate = path.isAbsolute(raw) ? raw : path.join(workspace, raw);
  const resolved = resolveLinks(candidate);
  const requiredRoot = resolveLinks(path.join(workspace, BENCHMARK_CONFIG_DIR));
  const rel = path.relative(requiredRoot, resolved);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) {
    throw new CliError(
      'USAGE_ERROR',
      `\`osmosis benchmark submit\` config must live under \`${BENCHMARK_CONFIG_DIR}/\`.\n  Got: ${resolved}\n  Expected under: ${requiredRoot}`,
      {
        details: { path: resolved, expected_under: requiredRoot, workspace_directory: workspace },
        hint: `move the file into ${BENCHMARK_CONFIG_DIR}/ of ${workspace} (relative paths are taken from there), e.g. ${BENCHMARK_CONFIG_DIR}/terminal-bench-smoke.toml (\`osmosis init\` writes one)`,
      },
    );
  }
  if (path.extname(resolved) !== '.toml')
    throw new CliError(
      'USAGE_ERROR',
      `\`osmosis benchmark submit\` config must be a .toml file under \`${BENCHMARK_CONFIG_DIR}/\`, got: ${resolved}`,
      { details: { path: resolved } },
    );
  return resolved;
}
