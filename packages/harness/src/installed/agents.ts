// What each installed CLI agent needs, as Harbor 0.9 runs it (its src/harbor/agents/installed/*.py,
// HARBOR_REFERENCE below): how to install it (pinned, the CLI itself as the agent user), how to run
// it headless on an instruction (the instruction after `--` or as `--flag=`, never parsed as an
// option), its run-shaping defaults, which variables carry its key, base URL and model, the config
// it reads the task's MCP servers and skills from, and how to read tokens and cost from what it
// writes. Every deliberate difference from Harbor is in the harness README ("Installed agents").
import { CLAUDE_CODE_EFFORTS, type HarnessName, harnessModelKeyEnvs } from '@osmosis/contracts';
import { PROVIDERS } from '../models/providers.ts';
import type { AgentModel, InstalledAgentDefinition } from './agent-definition.ts';
import {
  CODEX_RIPGREP_ON_PATH,
  claudeCodeModel,
  geminiNativeBaseUrl,
  OPENCODE_PROVIDER,
  opencodeConfig,
} from './cli-settings.ts';
import {
  aptInstall,
  curlInstall,
  nodeInstall,
  npmUserInstall,
  uvUserInstall,
  versionOf,
} from './install-scripts.ts';
import {
  claudeCodeMcpJson,
  codexMcpToml,
  cursorMcpJson,
  geminiMcpServers,
  miniSweAgentMcpNote,
  openHandsMcpToml,
} from './mcp.ts';
import {
  claudeCodeReader,
  claudeCodeSessionReader,
  codexReader,
  codexSessionReader,
  cursorCliReader,
  eventsReader,
  geminiCliReader,
  geminiSessionReader,
  miniSweAgentTrajectoryReader,
  opencodeReader,
  openHandsTrajectoryReader,
} from './parsers.ts';

/** The Harbor release whose installed agents these reproduce. */
export const HARBOR_REFERENCE = Object.freeze({
  project: 'harbor',
  version: '0.9.0',
  commit: '1b1dbc43729edff705071a797bb0f98a90cf62f5',
});

/** LiteLLM's name: `openai/<model>` talks to any OpenAI-compatible base URL, `anthropic/<model>` to Messages. */
const litellmModel = (m: AgentModel) => `${m.api}/${m.wireModel}`;
/**
 * The model key's variables come from contracts (HARNESS_MODEL_KEY_ENVS), the one list the
 * run-config rules also check literal env vars against, so the two cannot drift.
 */
const keyEnvsOf =
  (harness: HarnessName) =>
  (m: AgentModel): string[] => [...harnessModelKeyEnvs(harness, m.api)];

/** Pinned versions (the npm ones tested for real here). */
export const CLI_VERSIONS = Object.freeze({
  'claude-code': '2.1.332',
  codex: '0.171.0',
  'gemini-cli': '0.61.0',
  opencode: '1.18.33',
  'mini-swe-agent': '2.4.6',
  openhands: '1.11.0',
});

/** The npm packages of the CLIs published there (test images install the same). */
export const NPM_PACKAGES = Object.freeze({
  'claude-code': '@anthropic-ai/claude-code',
  codex: '@openai/codex',
  'gemini-cli': '@google/gemini-cli',
  opencode: 'opencode-ai',
});

const tomlString = (s: string) => JSON.stringify(s);

/** The bundled OpenHands' Python (tools/catalog.ts): the package importable, on PATH as this name. */
export const OPENHANDS_BUNDLE_PYTHON = 'openhands-python';
/** OpenHands headless as Harbor runs it, on `python` (the venv's, or the bundle's). */
const openHandsCommand = (python: string) =>
  `SANDBOX_VOLUMES="$PWD:/workspace:rw" USER="$(id -un)" ${python} -m openhands.core.main --task="$OSMOSIS_INSTRUCTION" \${OSMOSIS_OPENHANDS_CONFIG:+--config-file="$OSMOSIS_OPENHANDS_CONFIG"}`;

export const INSTALLED_AGENTS: Readonly<Record<string, InstalledAgentDefinition>> = {
  'claude-code': {
    name: 'claude-code',
    binary: 'claude',
    version: CLI_VERSIONS['claude-code'],
    testedVersion: CLI_VERSIONS['claude-code'],
    installRoot: nodeInstall,
    installUser: npmUserInstall(NPM_PACKAGES['claude-code'], CLI_VERSIONS['claude-code']),
    versionCommand: versionOf('claude'),
    apis: ['anthropic'],
    keyEnvs: keyEnvsOf('claude-code'),
    baseUrlEnvs: () => ['ANTHROPIC_BASE_URL'],
    env: (m) => ({
      ANTHROPIC_MODEL: claudeCodeModel(m),
      // on another endpoint every alias is the run's model, or Claude Code asks for Haiku/Opus by name
      ...(m.customBaseUrl
        ? {
            ANTHROPIC_DEFAULT_SONNET_MODEL: claudeCodeModel(m),
            ANTHROPIC_DEFAULT_OPUS_MODEL: claudeCodeModel(m),
            ANTHROPIC_DEFAULT_HAIKU_MODEL: claudeCodeModel(m),
            CLAUDE_CODE_SUBAGENT_MODEL: claudeCodeModel(m),
          }
        : {}),
      FORCE_AUTO_BACKGROUND_TASKS: '1',
      ENABLE_BACKGROUND_TASKS: '1',
      // telemetry, error reporting, update checks off (Claude Code settings docs)
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      // as root, claude refuses bypassPermissions without it (anthropics/claude-code#3490, #9184)
      IS_SANDBOX: '1',
      // sessions (and the config) under /logs/agent, collected as artifacts, as Harbor does
      CLAUDE_CONFIG_DIR: '/logs/agent/sessions',
    }),
    modelName: claudeCodeModel,
    configFiles: (_m, mcp) =>
      mcp.length ? [{ path: '$CLAUDE_CONFIG_DIR/.claude.json', content: claudeCodeMcpJson(mcp) }] : [],
    prepare:
      'mkdir -p "$CLAUDE_CONFIG_DIR/debug" "$CLAUDE_CONFIG_DIR/projects/-app" "$CLAUDE_CONFIG_DIR/shell-snapshots" "$CLAUDE_CONFIG_DIR/statsig" "$CLAUDE_CONFIG_DIR/todos" "$CLAUDE_CONFIG_DIR/skills"\n' +
      'if [ -d ~/.claude/skills ]; then cp -r ~/.claude/skills/. "$CLAUDE_CONFIG_DIR/skills/" 2>/dev/null || true; fi',
    skillsTo: '$CLAUDE_CONFIG_DIR/skills',
    // Harbor's max_turns and reasoning_effort kwargs (claude_code.py CLI_FLAGS)
    cliFlags: (p) => [
      ...(p.max_turns !== undefined ? [`--max-turns=${Math.trunc(p.max_turns)}`] : []),
      ...(p.reasoning_effort && (CLAUDE_CODE_EFFORTS as readonly string[]).includes(p.reasoning_effort)
        ? [`--effort=${p.reasoning_effort}`]
        : []),
    ],
    command:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, split into words on purpose
      'claude --verbose --output-format=stream-json --permission-mode=bypassPermissions --print ${OSMOSIS_AGENT_FLAGS:-} -- "$OSMOSIS_INSTRUCTION"',
    output: claudeCodeReader,
    usageFiles: [{ dir: '/logs/agent/sessions/projects', name: '*.jsonl', reader: claudeCodeSessionReader }],
  },
  codex: {
    name: 'codex',
    binary: 'codex',
    version: CLI_VERSIONS.codex,
    testedVersion: CLI_VERSIONS.codex,
    installRoot: nodeInstall,
    installUser: npmUserInstall(NPM_PACKAGES.codex, CLI_VERSIONS.codex),
    versionCommand: versionOf('codex'),
    apis: ['openai'],
    // CODEX_API_KEY and OPENAI_API_KEY (CODEX_API_KEY is the key variable of `codex exec`).
    keyEnvs: keyEnvsOf('codex'),
    baseUrlEnvs: () => ['OPENAI_BASE_URL'],
    env: () => ({ CODEX_HOME: '/tmp/codex-home' }),
    modelName: (m) => m.wireModel,
    // codex honours openai_base_url from config.toml only (Harbor codex.py); update checks,
    // analytics (and its metrics exporter) and the plugin/app catalogs, which each fetch from
    // OpenAI or GitHub at start, off (config reference: check_for_update_on_startup, [analytics], [features]).
    configFiles: (m, mcp) => [
      {
        path: '$CODEX_HOME/config.toml',
        content: [
          ...(m.customBaseUrl ? [`openai_base_url = ${tomlString(m.baseUrl)}`] : []),
          'check_for_update_on_startup = false',
          '',
          '[analytics]',
          'enabled = false',
          '',
          '[features]',
          'plugins = false',
          'remote_plugin = false',
          'apps = false',
          '',
          codexMcpToml(mcp),
        ].join('\n'),
      },
    ],
    skillsTo: '$HOME/.agents/skills',
    command:
      `${CODEX_RIPGREP_ON_PATH}\n` +
      'codex exec --dangerously-bypass-approvals-and-sandbox --skip-git-repo-check --model "$OSMOSIS_MODEL" --json --enable unified_exec -c model_reasoning_effort=high -- "$OSMOSIS_INSTRUCTION"',
    collect:
      'if [ -d "$CODEX_HOME/sessions" ]; then rm -rf /logs/agent/sessions; cp -R "$CODEX_HOME/sessions" /logs/agent/sessions; fi\nrm -rf "$CODEX_HOME"',
    output: codexReader,
    usageFiles: [{ dir: '/logs/agent/sessions', name: 'rollout-*.jsonl', reader: codexSessionReader }],
  },
  'cursor-cli': {
    name: 'cursor-cli',
    binary: 'cursor-agent',
    version: null,
    testedVersion: null,
    installRoot: curlInstall,
    installUser: 'curl -fsS https://cursor.com/install | bash',
    versionCommand: versionOf('cursor-agent'),
    apis: ['openai', 'anthropic'],
    // Cursor bills through the Cursor account: the only credential is CURSOR_API_KEY.
    keyEnvs: keyEnvsOf('cursor-cli'),
    baseUrlEnvs: () => [],
    harnessKeyEnv: 'CURSOR_API_KEY',
    modelName: (m) => m.wireModel,
    configFiles: (_m, mcp) =>
      mcp.length ? [{ path: '$HOME/.cursor/mcp.json', content: cursorMcpJson(mcp) }] : [],
    skillsTo: '$HOME/.cursor/skills',
    // --yolo (alias --force) also trusts the workspace, without which print mode exits 1.
    command:
      'cursor-agent --yolo --print --output-format=stream-json --model="$OSMOSIS_MODEL" -- "$OSMOSIS_INSTRUCTION"',
    output: cursorCliReader,
  },
  'mini-swe-agent': {
    name: 'mini-swe-agent',
    binary: 'mini-swe-agent',
    version: CLI_VERSIONS['mini-swe-agent'],
    testedVersion: null,
    installRoot: `command -v curl >/dev/null 2>&1 && command -v git >/dev/null 2>&1 && command -v gcc >/dev/null 2>&1 || ${aptInstall('ca-certificates', 'curl', 'build-essential', 'git')}`,
    // its own tool environment (uv tool), not the task's Python
    installUser: `${uvUserInstall}\n"$HOME/.local/bin/uv" tool install mini-swe-agent==${CLI_VERSIONS['mini-swe-agent']}`,
    versionCommand: `"$HOME/.local/bin/uv" tool list 2>/dev/null | grep mini-swe-agent | head -n1`,
    apis: ['openai', 'anthropic'],
    keyEnvs: keyEnvsOf('mini-swe-agent'),
    // LiteLLM reads OPENAI_BASE_URL or OPENAI_API_BASE, ANTHROPIC_API_BASE (ANTHROPIC_BASE_URL in newer versions).
    baseUrlEnvs: (m) =>
      m.api === 'anthropic'
        ? ['ANTHROPIC_API_BASE', 'ANTHROPIC_BASE_URL']
        : ['OPENAI_BASE_URL', 'OPENAI_API_BASE'],
    // MSWEA_CONFIGURED skips the interactive first-run setup; ignore_errors keeps an unpriced
    // model from aborting the run (mini-swe-agent run/extra/config.py, models/litellm_model.py).
    env: () => ({ MSWEA_CONFIGURED: 'true', MSWEA_COST_TRACKING: 'ignore_errors' }),
    modelName: litellmModel,
    instruction: (text, mcp) => (mcp.length ? text + miniSweAgentMcpNote(mcp) : text),
    // --cost-limit 0: no cost limit (its default limit stops runs), as Harbor sets
    command:
      'mini-swe-agent --yolo --model="$OSMOSIS_MODEL" --task="$OSMOSIS_INSTRUCTION" --output=/logs/agent/mini-swe-agent.trajectory.json --cost-limit 0 --exit-immediately',
    output: eventsReader,
    usageFiles: [
      { dir: '/logs/agent', name: 'mini-swe-agent.trajectory.json', reader: miniSweAgentTrajectoryReader },
    ],
  },
  openhands: {
    name: 'openhands',
    binary: '/opt/openhands-venv/bin/python',
    version: CLI_VERSIONS.openhands,
    testedVersion: null,
    // openhands-ai requires Python >=3.12,<3.14 (its pyproject); Debian bookworm has 3.11. uv
    // provides 3.13 in a venv under /opt owned by the agent user (as Harbor does); build tools for
    // its native dependencies; the local runtime drives bash through tmux.
    installRoot: [
      `command -v curl >/dev/null 2>&1 && command -v tmux >/dev/null 2>&1 && command -v git >/dev/null 2>&1 && command -v gcc >/dev/null 2>&1 || ${aptInstall('ca-certificates', 'curl', 'git', 'build-essential', 'tmux')}`,
      'mkdir -p /opt/openhands-venv && chown "$OSMOSIS_AGENT_USER" /opt/openhands-venv',
    ].join('\n'),
    installUser: [
      'curl -LsSf https://astral.sh/uv/install.sh | env UV_NO_MODIFY_PATH=1 sh',
      '"$HOME/.local/bin/uv" python install 3.13',
      '"$HOME/.local/bin/uv" venv /opt/openhands-venv --python 3.13',
      `SKIP_VSCODE_BUILD=true "$HOME/.local/bin/uv" pip install --python /opt/openhands-venv/bin/python openhands-ai==${CLI_VERSIONS.openhands}`,
    ].join('\n'),
    versionCommand: `/opt/openhands-venv/bin/python -c "import importlib.metadata as m; print(m.version('openhands-ai'))" 2>/dev/null`,
    apis: ['openai', 'anthropic'],
    keyEnvs: keyEnvsOf('openhands'),
    baseUrlEnvs: () => ['LLM_BASE_URL'],
    // The local runtime (the default is docker), no browser, reasoning effort high and auto-lint
    // as Harbor sets them; the trajectory file carries llm_metrics, completions are logged.
    env: (m, _key, mcp) => ({
      LLM_MODEL: litellmModel(m),
      LLM_REASONING_EFFORT: 'high',
      RUNTIME: 'local',
      RUN_AS_OPENHANDS: 'false',
      SU_TO_USER: 'false',
      SKIP_DEPENDENCY_CHECK: '1',
      AGENT_ENABLE_PROMPT_EXTENSIONS: 'false',
      AGENT_ENABLE_BROWSING: 'false',
      ENABLE_BROWSER: 'false',
      SANDBOX_ENABLE_AUTO_LINT: 'true',
      SAVE_TRAJECTORY_PATH: '/logs/agent/openhands.trajectory.json',
      FILE_STORE: 'local',
      FILE_STORE_PATH: '/logs/agent/',
      LLM_LOG_COMPLETIONS: 'true',
      LLM_LOG_COMPLETIONS_FOLDER: '/logs/agent/completions/',
      ...(mcp.length ? { OSMOSIS_OPENHANDS_CONFIG: '/logs/agent/openhands-config.toml' } : {}),
    }),
    modelName: litellmModel,
    configFiles: (_m, mcp) =>
      mcp.length ? [{ path: '/logs/agent/openhands-config.toml', content: openHandsMcpToml(mcp) }] : [],
    command: openHandsCommand('/opt/openhands-venv/bin/python'),
    // its local runtime starts by running `git config` and stops when that fails
    fromBundle: {
      binary: OPENHANDS_BUNDLE_PYTHON,
      command: openHandsCommand(OPENHANDS_BUNDLE_PYTHON),
      imageNeeds: ['git'],
    },
    output: eventsReader,
    usageFiles: [
      { dir: '/logs/agent', name: 'openhands.trajectory.json', reader: openHandsTrajectoryReader },
    ],
  },
  'gemini-cli': {
    name: 'gemini-cli',
    binary: 'gemini',
    version: CLI_VERSIONS['gemini-cli'],
    testedVersion: CLI_VERSIONS['gemini-cli'],
    installRoot: nodeInstall,
    installUser: npmUserInstall(NPM_PACKAGES['gemini-cli'], CLI_VERSIONS['gemini-cli']),
    versionCommand: versionOf('gemini'),
    apis: ['openai'],
    // gemini-cli speaks Gemini's own API (Harbor: "requires the native Gemini API"): only gemini/… models.
    providers: ['gemini'],
    keyEnvs: keyEnvsOf('gemini-cli'),
    baseUrlEnvs: () => [],
    env: (m) => ({
      // without a trusted workspace gemini-cli drops --yolo back to the default approval mode (Harbor gemini_cli.py)
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      GEMINI_TELEMETRY_ENABLED: 'false',
      // an operator override of the gemini provider: its native root (configuration.md GOOGLE_GEMINI_BASE_URL)
      ...(m.baseUrl !== PROVIDERS.gemini?.baseUrl
        ? { GOOGLE_GEMINI_BASE_URL: geminiNativeBaseUrl(m.baseUrl) }
        : {}),
    }),
    modelName: (m) => m.wireModel,
    // usage statistics, telemetry and auto-update off (configuration.md); the API-key auth named,
    // since a base URL alone selects the "gateway" auth gemini-cli refuses headless; skills on as Harbor's install sets.
    configFiles: (_m, mcp) => [
      {
        path: '$HOME/.gemini/settings.json',
        content: JSON.stringify(
          {
            general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
            privacy: { usageStatisticsEnabled: false },
            telemetry: { enabled: false },
            security: { auth: { selectedType: 'gemini-api-key' } },
            experimental: { skills: true },
            ...(mcp.length ? { mcpServers: geminiMcpServers(mcp) } : {}),
          },
          null,
          2,
        ),
      },
    ],
    skillsTo: '$HOME/.gemini/skills',
    command:
      'gemini --yolo --output-format=stream-json --model="$OSMOSIS_MODEL" --prompt="$OSMOSIS_INSTRUCTION"',
    collect:
      "src=$(find ~/.gemini/tmp -type f \\( -name 'session-*.jsonl' -o -name 'session-*.json' \\) -printf '%T@ %p\\n' 2>/dev/null | sort -nr | head -n1 | awk '{print $2}')\n" +
      // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
      'if [ -n "$src" ]; then cp "$src" "/logs/agent/gemini-cli.trajectory.${src##*.}"; fi',
    output: geminiCliReader,
    usageFiles: [{ dir: '/logs/agent', name: 'gemini-cli.trajectory.jsonl', reader: geminiSessionReader }],
  },
  opencode: {
    name: 'opencode',
    binary: 'opencode',
    version: CLI_VERSIONS.opencode,
    testedVersion: CLI_VERSIONS.opencode,
    installRoot: nodeInstall,
    // opencode installs @opencode-ai/plugin into its config folder at every start (anomalyco/opencode#37888):
    // installed here once, at the same version
    installUser: [
      npmUserInstall(NPM_PACKAGES.opencode, CLI_VERSIONS.opencode),
      `mkdir -p "$HOME/.config/opencode" && cd "$HOME/.config/opencode" && npm install --no-audit --no-fund @opencode-ai/plugin@${CLI_VERSIONS.opencode}`,
    ].join('\n'),
    versionCommand: versionOf('opencode'),
    apis: ['openai', 'anthropic'],
    keyEnvs: keyEnvsOf('opencode'),
    baseUrlEnvs: () => [],
    env: (m, apiKey, mcp) => ({
      OPENCODE_CONFIG_CONTENT: JSON.stringify(opencodeConfig(m, apiKey, mcp)),
      OPENCODE_FAKE_VCS: 'git',
      // the update check and the models.dev catalog fetch (the bundled snapshot is used) off
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
    }),
    modelName: (m) =>
      `${m.api === 'anthropic' ? 'anthropic' : m.provider === 'openai' ? 'openai' : OPENCODE_PROVIDER}/${m.wireModel}`,
    skillsTo: '$HOME/.config/opencode/skills',
    // --thinking only includes thinking blocks in the JSON events (Harbor opencode.py)
    command:
      'opencode --model="$OSMOSIS_MODEL" run --format=json --thinking --dangerously-skip-permissions -- "$OSMOSIS_INSTRUCTION"',
    output: opencodeReader,
  },
};
