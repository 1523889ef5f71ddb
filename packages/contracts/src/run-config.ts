// The run config (TOML) users submit with `osmosis benchmark submit`: its schema, and the rules
// that need nothing but the file itself. Shared by the CLI (local validation) and the API
// (re-validation on submit). Rules that need the benchmark live in @osmosis/core config-rules.
//
// Error messages never repeat a value from the file that could be a secret: secret fields that
// fail validation, TOML syntax errors and env values are described, not echoed.
import { parse as parseToml, TomlError } from 'smol-toml';
import { parseConfigPath } from './run-config/config-path.ts';
import { fileRules } from './run-config/file-rules.ts';
import type { ConfigIssue, RunConfigValidation } from './run-config/issues.ts';
import { locateInToml } from './run-config/locate.ts';
import { RunConfig } from './run-config/schema.ts';
import { issueFromZod, type ZodIssueLike } from './run-config/zod-issues.ts';

export { levenshtein, nearest } from './nearest.ts';
export { describeTable, formatConfigPath, parseConfigPath } from './run-config/config-path.ts';
export {
  agentSecretRefs,
  checkAgentHarness,
  configSecretNames,
  effectiveEnv,
  envSource,
  envTableLabel,
  verifierTableNames,
} from './run-config/file-rules.ts';
export * from './run-config/issues.ts';
export { locateInToml } from './run-config/locate.ts';
export * from './run-config/schema.ts';

// ---------------------------------------------------------------------------------------------
// Entry points

function withLocation(text: string, issue: ConfigIssue): ConfigIssue {
  if (issue.line !== undefined) return issue;
  const loc = locateInToml(text, parseConfigPath(issue.path));
  return loc ? { ...issue, ...loc } : issue;
}

/** Validate an already-parsed document (the API receives TOML text; tests may use objects). */
export function validateRunConfigObject(raw: unknown): RunConfigValidation {
  const parsed = RunConfig.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.flatMap((i) => issueFromZod(raw, i as unknown as ZodIssueLike));
    return { ok: false, issues, warnings: [] };
  }
  const issues = fileRules(parsed.data);
  if (issues.length > 0) return { ok: false, issues, warnings: [] };
  return { ok: true, config: parsed.data, issues: [], warnings: [] };
}

/**
 * Parse and validate a run config. Issues name the file, and the line and column where they
 * can be located; the messages say what to change.
 */
export function validateRunConfig(tomlText: string, fileName = 'config.toml'): RunConfigValidation {
  let raw: unknown;
  try {
    raw = parseToml(tomlText);
  } catch (error) {
    if (error instanceof TomlError) {
      // the first line only: the code block smol-toml appends would repeat the file's text
      const reason = error.message.split('\n')[0]!.replace(/^Invalid TOML document:\s*/, '');
      return {
        ok: false,
        issues: [
          {
            code: 'TOML_SYNTAX',
            path: '',
            line: error.line,
            column: error.column,
            message: `${fileName}:${error.line}:${error.column}: invalid TOML: ${reason}; fix the syntax at line ${error.line}, column ${error.column}`,
          },
        ],
        warnings: [],
      };
    }
    throw error;
  }
  const result = validateRunConfigObject(raw);
  if (result.ok) return result;
  return { ...result, issues: locateConfigIssues(tomlText, result.issues) };
}

/**
 * How many issues of one file get a line and column. Each is located by reading the file from
 * its top, so locating every issue of a file written to have thousands would be quadratic
 * (3000 unknown keys: 17 s); the rest are reported without a position.
 */
export const MAX_LOCATED_ISSUES = 100;

/** Add line/column to issues found after parsing (e.g. by the benchmark-dependent rules). */
export function locateConfigIssues(tomlText: string, issues: readonly ConfigIssue[]): ConfigIssue[] {
  return issues.map((i, n) => (n < MAX_LOCATED_ISSUES ? withLocation(tomlText, i) : i));
}

/** `file:line:column: message` (or `file: message` when the issue has no position). */
export function formatConfigIssue(fileName: string, issue: ConfigIssue): string {
  if (issue.code === 'TOML_SYNTAX') return issue.message;
  const pos =
    issue.line !== undefined ? `:${issue.line}${issue.column !== undefined ? `:${issue.column}` : ''}` : '';
  return `${fileName}${pos}: ${issue.message}${issue.path ? ` [${issue.code} at ${issue.path}]` : ` [${issue.code}]`}`;
}
