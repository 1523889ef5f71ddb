// An installed CLI agent as a Harness: setup gets the CLI into the sandbox (the worker's bundle,
// the image's, or an install: setup.ts), run writes its config and instruction, runs it headless as the agent user,
// and reads tokens, cost and events from what it wrote. Env and refusals: agent-env.ts.
import { createScrubber, type Scrubber } from '@osmosis/core';
import { checkUrl, EgressError } from '@osmosis/egress';
import { type Harness, type HarnessContext, type HarnessRunResult, SANDBOX_PATHS } from '../harness.ts';
import { modelEgressPolicy } from '../models/egress.ts';
import { costUsd, loadPrices } from '../models/prices.ts';
import type { ResolvedModel } from '../models/providers.ts';
import { rememberToolChoice, type ToolChoice, toolChoiceOf, versionLine } from '../tools/choice.ts';
import type { AgentModel, InstalledAgentDefinition } from './agent-definition.ts';
import { fail, INSTRUCTION_FILE, installedAgentEnv } from './agent-env.ts';
import { HARBOR_REFERENCE, INSTALLED_AGENTS } from './agents.ts';
import { installedTrajectory } from './atif/index.ts';
import type { ParsedAgentOutput as ParsedOutput } from './line-reader.ts';
import { type McpServer, parseMcpServers } from './mcp.ts';
import { findSandboxFiles, readSandboxLines } from './sandbox-lines.ts';
import { bash, pathLine, setupInstalled, tail } from './setup.ts';

export interface InstalledHarnessOptions {
  /** Replaces the definition's install script (tests install a stand-in CLI this way). */
  installScript?: string;
  /** Operator env for base URL overrides, hosted endpoint and prices (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/** The instruction, byte for byte (a command substitution would drop trailing newlines). */
const INSTRUCTION_PRELUDE =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
  'OSMOSIS_INSTRUCTION="$(cat "$OSMOSIS_INSTRUCTION_FILE"; printf x)"; OSMOSIS_INSTRUCTION="${OSMOSIS_INSTRUCTION%x}"';

/**
 * The CLI's version: a bundle's is known (pinned, checked when it was prepared); else the first
 * line of its `--version`, printable only; null when it printed none.
 */
async function cliVersionOf(
  ctx: HarnessContext,
  def: InstalledAgentDefinition,
  run: { choice: ToolChoice | undefined; userPath: string; env: Record<string, string> },
): Promise<string | null> {
  if (run.choice?.use.source === 'bundle') return run.choice.use.version;
  const version = await bash(ctx, `${run.userPath}\n${def.versionCommand}`, {
    env: run.env,
    timeoutMs: 60_000,
  }).catch(() => null);
  // the CLI on the PATH comes with the benchmark's image: its version line is text it chose
  // (printable only here; scrubbed of the keys by the caller, as everything it printed)
  return version?.exitCode === 0 ? versionLine(version.stdout) : null;
}

/**
 * Settings, MCP servers and skills, written as the agent user (file contents travel as
 * variables, never as code); a failure is the run's result.
 */
async function writeAgentConfig(
  ctx: HarnessContext,
  def: InstalledAgentDefinition,
  run: { model: AgentModel; mcp: McpServer[]; env: Record<string, string>; scrubber: Scrubber },
): Promise<HarnessRunResult | null> {
  const files = def.configFiles?.(run.model, run.mcp) ?? [];
  const fileEnv: Record<string, string> = {};
  const steps: string[] = [];
  files.forEach((f, i) => {
    fileEnv[`OSMOSIS_CONFIG_${i}`] = f.content;
    steps.push(`p="${f.path}"; mkdir -p "$(dirname "$p")"; printf '%s' "$OSMOSIS_CONFIG_${i}" > "$p"`);
  });
  if (def.prepare) steps.push(def.prepare);
  const skillsDir = ctx.task.config?.environment?.skills_dir;
  if (def.skillsTo && skillsDir) {
    fileEnv.OSMOSIS_SKILLS_DIR = skillsDir;
    steps.push(
      `if [ -d "$OSMOSIS_SKILLS_DIR" ]; then mkdir -p "${def.skillsTo}" && cp -r "$OSMOSIS_SKILLS_DIR"/. "${def.skillsTo}/" 2>/dev/null || true; fi`,
    );
  }
  if (!steps.length) return null;
  const r = await bash(ctx, `set -e\n${steps.join('\n')}`, {
    env: { ...run.env, ...fileEnv },
    timeoutMs: 60_000,
  });
  if (r.exitCode === 0) return null;
  return {
    exitCode: null,
    timedOut: false,
    error: {
      errorClass: 'harness_crash',
      message: `${def.name}: writing its config failed: ${tail(r.stderr || r.stdout, run.scrubber)}`,
    },
  };
}

/** What the CLI printed, with tokens from the files it writes as it goes when its output has none. */
async function readAgentOutput(
  ctx: HarnessContext,
  def: InstalledAgentDefinition,
  output: string,
): Promise<ParsedOutput> {
  const outReader = def.output();
  await readSandboxLines(ctx.sandbox, output, outReader, ctx.signal);
  const parsed = outReader.done();
  for (const source of def.usageFiles ?? []) {
    if (parsed.usage) break;
    const reader = source.reader();
    for (const file of await findSandboxFiles(ctx.sandbox, source.dir, source.name))
      await readSandboxLines(ctx.sandbox, file, reader, ctx.signal);
    const fromFiles = reader.done();
    if (fromFiles.usage) {
      parsed.usage = fromFiles.usage;
      parsed.reportedCostUsd = fromFiles.reportedCostUsd;
    }
  }
  return parsed;
}

interface FinishedRun {
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  commandMs: number;
  instruction: string;
  cliVersion: string | null;
  choice: ToolChoice | undefined;
  resolved: ResolvedModel;
  scrubber: Scrubber;
  operatorEnv: NodeJS.ProcessEnv;
}

/** The run's result: usage and cost, the errors the CLI reported, its trajectory and harness info. */
async function runResult(
  ctx: HarnessContext,
  def: InstalledAgentDefinition,
  run: FinishedRun,
  parsed: ParsedOutput,
): Promise<HarnessRunResult> {
  const { resolved, scrubber, cliVersion } = run;
  const usage = parsed.usage;
  const price = loadPrices(run.operatorEnv).get(resolved.priceKey);
  const cost = usage ? (costUsd(usage, price) ?? parsed.reportedCostUsd ?? null) : null;
  const errors = parsed.errors ?? [];
  const atif = await installedTrajectory(ctx.sandbox, {
    agentName: def.name,
    modelName: resolved.displayName,
    cliVersion,
    pinnedVersion: def.version,
    instruction: run.instruction,
    ...(parsed.reportedCostUsd !== undefined ? { reportedCostUsd: parsed.reportedCostUsd } : {}),
    finalMetrics: usage
      ? {
          total_prompt_tokens: usage.input + usage.cache_read + usage.cache_write,
          total_completion_tokens: usage.output,
          total_cached_tokens: usage.cache_read,
          ...(cost !== null ? { total_cost_usd: cost } : {}),
        }
      : null,
    extra: {
      exit_code: run.exitCode,
      timed_out: run.timedOut,
      duration_ms: run.durationMs,
      cost_usd: cost,
      reported_cost_usd: parsed.reportedCostUsd ?? null,
      output_file: `agent/${def.name}.txt`,
    },
  });
  return {
    exitCode: run.exitCode,
    timedOut: run.timedOut,
    ...(usage
      ? {
          usage: {
            // Harbor's n_input_tokens (every prompt token) and n_cache_tokens (cache reads)
            inputTokens: usage.input + usage.cache_read + usage.cache_write,
            outputTokens: usage.output,
            cacheTokens: usage.cache_read,
            costUsd: cost,
          },
        }
      : {}),
    ...(errors.length
      ? {
          agentError: `${def.name} reported errors: ${errors
            .slice(0, 3)
            .map((e) => scrubber.text(e).slice(0, 2000))
            .join('; ')}`,
        }
      : {}),
    trajectory: scrubber.deep(atif.trajectory),
    // images the converter decoded (Gemini CLI's), beside the trajectory
    files: atif.files.map((f) => ({ path: `agent/${f.path}`, content: f.content })),
    commandMs: run.commandMs,
    harnessInfo: {
      harness: def.name,
      version: (cliVersion === null ? null : scrubber.text(cliVersion)) ?? def.version ?? 'unknown',
      reference: { ...HARBOR_REFERENCE },
      templates: null,
      model_params: null,
      max_turns: null,
      summarize_threshold_tokens: null,
      tools: [
        {
          name: def.name,
          version: cliVersion === null ? null : scrubber.text(cliVersion),
          source: run.choice?.use.source ?? 'image',
        },
      ],
    },
  };
}

async function runInstalledAgent(
  def: InstalledAgentDefinition,
  operatorEnv: NodeJS.ProcessEnv,
  ctx: HarnessContext,
  instruction: string,
): Promise<HarnessRunResult> {
  const mcp = parseMcpServers(ctx.task.config?.environment?.mcp_servers);
  const prepared = installedAgentEnv(def, ctx, operatorEnv, mcp.servers);
  if ('error' in prepared) return prepared;
  const { env, resolved, model } = prepared;
  const scrubber = createScrubber([...ctx.secrets, resolved.apiKey], { minLength: ctx.scrubMinLength });
  if (resolved.memberNamedBaseUrl) {
    // the CLI connects from the sandbox; the worker refuses an endpoint the platform would not call itself
    try {
      await checkUrl(resolved.baseUrl, modelEgressPolicy(resolved, operatorEnv), {
        schemes: ['http', 'https'],
      });
    } catch (error) {
      if (error instanceof EgressError) return fail(`${def.name}: ${error.message}`);
      throw error;
    }
  }
  for (const message of mcp.skipped)
    ctx.log({ level: 'warn', step: 'agent', message: `${def.name}: MCP server left out: ${message}` });
  const text = def.instruction ? def.instruction(instruction, mcp.servers) : instruction;
  await ctx.sandbox.putFiles([{ path: INSTRUCTION_FILE, content: text, mode: 0o644 }]);
  const choice = toolChoiceOf(ctx.sandbox, def.name);
  const userPath = pathLine(choice, ctx.tools);
  const cliVersion = await cliVersionOf(ctx, def, { choice, userPath, env });
  const configFailed = await writeAgentConfig(ctx, def, { model, mcp: mcp.servers, env, scrubber });
  if (configFailed) return configFailed;

  const output = `${SANDBOX_PATHS.agentLogs}/${def.name}.txt`;
  const command = (choice?.use.source === 'bundle' && def.fromBundle?.command) || def.command;
  const started = Date.now();
  const r = await bash(
    ctx,
    `${userPath}\n${INSTRUCTION_PRELUDE}\n{\n${command}\n} </dev/null >"${output}" 2>&1`,
    {
      env,
      timeoutMs: ctx.timeouts.agentMs,
    },
  );
  const commandMs = Date.now() - started;
  ctx.log({
    level: 'info',
    step: 'agent',
    message: `${def.name} exited ${r.timedOut ? 'on timeout' : `with ${r.exitCode}`}`,
  });
  if (def.collect && !ctx.signal.aborted)
    await bash(ctx, def.collect, { env, timeoutMs: 120_000 }).catch(() => null);
  // tokens: the CLI's output, read a piece at a time; else the files it writes as it goes
  const parsed = await readAgentOutput(ctx, def, output);
  const finished = { exitCode: r.exitCode, timedOut: r.timedOut, durationMs: r.durationMs, commandMs };
  return runResult(
    ctx,
    def,
    { ...finished, instruction, cliVersion, choice, resolved, scrubber, operatorEnv },
    parsed,
  );
}

export function createInstalledHarness(
  def: InstalledAgentDefinition,
  options: InstalledHarnessOptions = {},
): Harness {
  const operatorEnv = options.env ?? process.env;
  return {
    name: def.name,
    async setup(ctx: HarnessContext): Promise<void> {
      rememberToolChoice(ctx.sandbox, def.name, await setupInstalled(def, ctx, options.installScript));
    },
    run: (ctx: HarnessContext, instruction: string) => runInstalledAgent(def, operatorEnv, ctx, instruction),
  };
}

/** Every installed agent as a harness (registered in registry.ts; they need internet to install). */
export function installedHarnesses(options: InstalledHarnessOptions = {}): Harness[] {
  return Object.values(INSTALLED_AGENTS).map((def) => createInstalledHarness(def, options));
}
