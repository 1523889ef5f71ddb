// Rules on a parsed run config that need nothing but the file itself.
import { checkAgentParams } from '../agent-params.ts';
import { type ConfigPathPart, describeTable, formatConfigPath, parseConfigPath } from './config-path.ts';
import type { ConfigIssue } from './issues.ts';
import {
  ENV_KEY_PATTERN,
  HARNESS_KEY_SECRETS,
  HARNESS_MODEL_KEY_ENVS,
  type HarnessName,
  harnessModelKeyEnvs,
  MODEL_FREE_HARNESSES,
  modelApiOf,
  RESERVED_ENV_PREFIX,
  RESERVED_SECRET_NAMES,
  RUNNER_RESERVED_ENV,
  type RunConfig,
} from './schema.ts';

/** Secret record names an agent references, with the config key that names each. */
export function agentSecretRefs(config: RunConfig, index: number): { name: string; path: string }[] {
  const agent = config.agents[index];
  if (!agent) return [];
  const refs: { name: string; path: string }[] = [];
  if (agent.model && agent.model.type !== 'hosted')
    refs.push({ name: agent.model.api_key_secret, path: `agents[${index}].model.api_key_secret` });
  if (agent.harness_api_key_secret)
    refs.push({ name: agent.harness_api_key_secret, path: `agents[${index}].harness_api_key_secret` });
  // [secrets] names go to every agent, as env vars of the same name
  config.secrets?.required.forEach((name, j) => {
    refs.push({ name, path: `secrets.required[${j}]` });
  });
  if (config.execution.judge_api_key_secret)
    refs.push({ name: config.execution.judge_api_key_secret, path: 'execution.judge_api_key_secret' });
  return refs;
}

/** The `[verifier] required` names (records the verifier receives besides the benchmark's own). */
export function verifierTableNames(config: RunConfig): string[] {
  return [...new Set(config.verifier?.required ?? [])];
}

/** Every secret record name the config references (deduplicated, in order of appearance). */
export function configSecretNames(config: RunConfig): string[] {
  const names = new Set<string>();
  config.agents.forEach((_, i) => {
    for (const r of agentSecretRefs(config, i)) names.add(r.name);
  });
  return [...names];
}

/** The env an agent's harness sees, without secrets: [env] overridden by [agents.env]. */
export function effectiveEnv(config: RunConfig, index: number): Record<string, string> {
  return { ...config.env, ...(config.agents[index]?.env ?? {}) };
}

/** The config path a name of an agent's effective env comes from: `agents[i].env.NAME` or `env.NAME`. */
export function envSource(config: RunConfig, index: number, name: string): string {
  return config.agents[index]?.env[name] !== undefined ? `agents[${index}].env.${name}` : `env.${name}`;
}

/** The env table `envSource` names, as messages write it: `[env]` or `[agents.env] of agent N`. */
export function envTableLabel(source: string): string {
  const m = /^agents\[(\d+)\]\./.exec(source);
  return m ? `[agents.env] of agent ${Number(m[1]) + 1}` : '[env]';
}

/**
 * Rules that depend on an agent's harness. The file-only validation runs them for agents that
 * name their harness; config-rules runs them with the benchmark's default harness for the rest.
 */
export function checkAgentHarness(config: RunConfig, index: number, harness: HarnessName): ConfigIssue[] {
  const agent = config.agents[index];
  if (!agent) return [];
  const issues: ConfigIssue[] = [];
  const label = `agent ${index + 1}`;
  const required = HARNESS_KEY_SECRETS[harness];
  const harnessNote = agent.harness ? `harness ${harness}` : `harness ${harness} (the benchmark's default)`;
  if (required) {
    if (!agent.harness_api_key_secret)
      issues.push({
        code: 'HARNESS_KEY_REQUIRED',
        path: `agents[${index}].harness_api_key_secret`,
        message: `${label} uses ${harnessNote}, which needs its own key: add harness_api_key_secret = "${required}" to [[agents]] (${label}) and create the record with \`osmosis secret set ${required}\``,
      });
    else if (agent.harness_api_key_secret !== required)
      issues.push({
        code: 'HARNESS_KEY_NAME',
        path: `agents[${index}].harness_api_key_secret`,
        message: `\`harness_api_key_secret\` of ${label} (${harnessNote}) must be exactly "${required}": rename the record to ${required} (\`osmosis secret set ${required}\`) and reference that name`,
      });
    const env = effectiveEnv(config, index);
    if (env[required] !== undefined)
      issues.push({
        code: 'ENV_HARNESS_KEY_COLLISION',
        path: envSource(config, index, required),
        message: `${label} sets ${required} literally in ${envSource(config, index, required).startsWith('env.') ? '[env]' : '[agents.env]'}, but ${required} is the key variable of ${harness}, injected from the secret record: remove ${required} from the env table and use harness_api_key_secret = "${required}"`,
      });
  } else if (agent.harness_api_key_secret) {
    issues.push({
      code: 'HARNESS_KEY_NOT_ACCEPTED',
      path: `agents[${index}].harness_api_key_secret`,
      message: `${label} uses ${harnessNote}, which does not take harness_api_key_secret (only cursor-cli and mini-swe-agent do): remove harness_api_key_secret from [[agents]] (${label})`,
    });
  }
  issues.push(...checkAgentParams(agent, index, harness, harnessNote));
  if (agent.model?.type === 'hosted' && HARNESS_MODEL_KEY_ENVS[harness])
    issues.push(hostedModelInSandbox(index, harnessNote));
  else if (agent.model) {
    // the model key, exported by the harness under its own variables (overwriting a literal);
    // names that are also secret records of the agent are ENV_SECRET_COLLISION (fileRules)
    const api = modelApiOf(agent.model);
    const env = effectiveEnv(config, index);
    const refs = new Set(agentSecretRefs(config, index).map((r) => r.name));
    for (const name of harnessModelKeyEnvs(harness, api)) {
      if (env[name] === undefined || refs.has(name) || name === required) continue;
      const src = envSource(config, index, name);
      const table = envTableLabel(src);
      const fix =
        agent.model.type === 'hosted'
          ? `remove ${name} from ${table}; hosted models are called with the platform operator's key, which the harness exports as ${name} when the operator has configured one`
          : `remove ${name} from ${table}; the value comes from the secret record named by api_key_secret ("${agent.model.api_key_secret}"), so to use another key, store it as a secret record (\`osmosis secret set NAME\`) and set api_key_secret = "NAME" in [agents.model] of ${label}`;
      issues.push({
        code: 'ENV_HARNESS_KEY_COLLISION',
        path: src,
        message: `${label} sets ${name} literally in ${table}, but ${harnessNote} exports the model key as ${name} (for ${api}-API models), so the literal would be overwritten at run time: ${fix}`,
      });
    }
  }
  if (!agent.model && !MODEL_FREE_HARNESSES.includes(harness))
    issues.push({
      code: 'MODEL_REQUIRED',
      path: `agents[${index}].model`,
      message: `${label} uses ${harnessNote}, which needs a model: add an [agents.model] table after [[agents]] (${label}), e.g.\n[agents.model]\ntype = "provider"\nmodel = "openai/gpt-5.2"\napi_key_secret = "OPENAI_API_KEY"`,
    });
  return issues;
}

/**
 * Installed agents run inside the sandbox, where the agent's code can read their env: the
 * operator's hosted-model key (OSMOSIS_HOSTED_API_KEY) is never given to them.
 */
function hostedModelInSandbox(index: number, harnessNote: string): ConfigIssue {
  return {
    code: 'HOSTED_MODEL_IN_SANDBOX',
    path: `agents[${index}].model.type`,
    message: `agent ${index + 1} uses ${harnessNote} with a hosted model: installed agents run inside the sandbox, where code the agent runs could read the platform operator's hosted-model key, so hosted models run only with harness = "terminus-2" (which calls the model from the platform); set harness = "terminus-2" in [[agents]] (agent ${index + 1}), or use a provider or endpoint model with your own key`,
  };
}

function checkEnvTable(env: Record<string, string>, prefix: readonly ConfigPathPart[]): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const name of Object.keys(env)) {
    const path = [...prefix, name];
    const where = describeTable(path);
    if (!ENV_KEY_PATTERN.test(name))
      issues.push({
        code: 'INVALID_ENV_KEY',
        path: formatConfigPath(path),
        message: `env key \`${name}\` in ${where} is not a valid name: env keys match ^[A-Z_][A-Z0-9_]*$ (upper case letters, digits, underscores), e.g. ${name
          .toUpperCase()
          .replace(/[^A-Z0-9_]/g, '_')
          .replace(/^[0-9]/, '_$&')}`,
      });
    else if (name.startsWith(RESERVED_ENV_PREFIX))
      issues.push({
        code: 'RESERVED_ENV_KEY',
        path: formatConfigPath(path),
        message: `env key \`${name}\` in ${where} starts with ${RESERVED_ENV_PREFIX}, which is reserved for the platform: rename it`,
      });
    else if ((RUNNER_RESERVED_ENV as readonly string[]).includes(name))
      issues.push({
        code: 'RESERVED_ENV_KEY',
        path: formatConfigPath(path),
        message: `\`${name}\` in ${where} is reserved by the runner and is never set in a config: remove it; benchmarks that need it get it from the secret record ${name} (\`osmosis secret set ${name}\`)`,
      });
  }
  return issues;
}

function checkSecretField(name: string | undefined, path: string): ConfigIssue[] {
  if (!name || !(RESERVED_SECRET_NAMES as readonly string[]).includes(name)) return [];
  if (path.startsWith('secrets.'))
    return [
      {
        code: 'RESERVED_SECRET_NAME',
        path,
        message: `"${name}" in [secrets] required is not allowed: ${name} is reserved by the runner (reserved: ${RESERVED_SECRET_NAMES.join(', ')}), so it is never given to an agent; remove it from the list`,
      },
    ];
  const key = path.split('.').pop()!;
  return [
    {
      code: 'RESERVED_SECRET_NAME',
      path,
      message: `\`${key}\` = "${name}" in ${describeTable(parseConfigPath(path))} is not allowed: ${name} is reserved by the runner (reserved: ${RESERVED_SECRET_NAMES.join(', ')}); reference the record that holds your model provider's key instead`,
    },
  ];
}

export function fileRules(config: RunConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const b = config.experiment.benchmark;
  if (/^(\.{1,2}\/|\/|~\/)/.test(b) || /\.(toml|tar|tgz|tar\.gz|zip)$/i.test(b))
    issues.push({
      code: 'BENCHMARK_IS_PATH',
      path: 'experiment.benchmark',
      message:
        '`benchmark` in [experiment] looks like a local path; a run references a benchmark already added to the workspace by its key, exact name or id: add the directory with `osmosis benchmark add` first, then use its key (see `osmosis benchmark list`)',
    });
  issues.push(...checkEnvTable(config.env, ['env']));
  issues.push(...checkSecretField(config.execution.judge_api_key_secret, 'execution.judge_api_key_secret'));
  config.secrets?.required.forEach((name, j) => {
    issues.push(...checkSecretField(name, `secrets.required[${j}]`));
  });
  config.agents.forEach((agent, i) => {
    issues.push(...checkEnvTable(agent.env, ['agents', i, 'env']));
    if (agent.model && agent.model.type !== 'hosted')
      issues.push(...checkSecretField(agent.model.api_key_secret, `agents[${i}].model.api_key_secret`));
    issues.push(...checkSecretField(agent.harness_api_key_secret, `agents[${i}].harness_api_key_secret`));
    if (agent.model?.type === 'endpoint')
      for (const header of Object.keys(agent.model.extra_headers ?? {}))
        if (header.toLowerCase() === 'authorization')
          issues.push({
            code: 'AUTHORIZATION_HEADER',
            path: `agents[${i}].model.extra_headers.${header}`,
            message: `\`${header}\` in [agents.model.extra_headers] of agent ${i + 1} is not allowed: the platform sends Authorization: Bearer <key> from api_key_secret; remove the header and put the key in a secret record named by api_key_secret`,
          });
    // literal env named like a referenced secret
    const env = effectiveEnv(config, i);
    const harnessKey = agent.harness ? HARNESS_KEY_SECRETS[agent.harness] : undefined;
    const seen = new Set<string>();
    for (const ref of agentSecretRefs(config, i)) {
      if (seen.has(ref.name) || ref.name === harnessKey || env[ref.name] === undefined) continue;
      seen.add(ref.name);
      const src = envSource(config, i, ref.name);
      issues.push({
        code: 'ENV_SECRET_COLLISION',
        path: src,
        message: `agent ${i + 1} references the secret record ${ref.name} (${ref.path}), which the platform injects as the env var ${ref.name}, but ${src.startsWith('env.') ? '[env]' : `[agents.env] of agent ${i + 1}`} also sets ${ref.name} literally: remove ${ref.name} from the env table`,
      });
    }
    if (agent.harness) issues.push(...checkAgentHarness(config, i, agent.harness));
    else if (!agent.model)
      issues.push({
        code: 'MODEL_REQUIRED',
        path: `agents[${i}].model`,
        message: `agent ${i + 1} has no [agents.model]: add one after [[agents]] (agent ${i + 1}), or set harness = "oracle" or "nop" for an agent that calls no model`,
      });
  });
  return issues;
}
