// The shape of an installed CLI agent's definition (agents.ts holds one per agent): install,
// headless command, model variables, config files and the readers of what the CLI writes.
import type { AgentParams } from '@osmosis/contracts';
import type { ModelApi } from '../models/types.ts';
import type { McpServer } from './mcp.ts';
import type { LineReader } from './parsers.ts';

export interface AgentModel {
  api: ModelApi;
  /** `openai`, `anthropic`, …, `endpoint`, `hosted`. */
  provider: string;
  /** Model name on the wire (no provider prefix). */
  wireModel: string;
  /** Where the model is served: OpenAI-style bases end where `/chat/completions` is appended, Anthropic's at the host. */
  baseUrl: string;
  /** The base URL is not the API's own (api.openai.com/v1, api.anthropic.com): the CLI must be pointed at it. */
  customBaseUrl: boolean;
}

/** A file written as the agent user before the run; `path` may start with `$HOME/` or `$CODEX_HOME/`-style variables. */
export interface ConfigFile {
  path: string;
  content: string;
}

/** Where tokens are read when the CLI's output has none (a run cut short): files written as the run goes. */
export interface UsageFiles {
  dir: string;
  /** `find -name` pattern. */
  name: string;
  reader(): LineReader;
}

export interface InstalledAgentDefinition {
  name: string;
  /** CLI flags from `[agents.params]`, words without spaces (the command splats $OSMOSIS_AGENT_FLAGS). */
  cliFlags?(params: AgentParams): string[];
  /** The executable (name on PATH, which includes `$HOME/.local/bin`); when present the install is skipped. */
  binary: string;
  /** The version the install pins; null when the CLI's installer takes none (cursor-cli). */
  version: string | null;
  /**
   * The version run for real here (test/harness-installed-real.test.ts, against the fake model
   * server); null when only a stand-in script imitates the CLI (not on the npm registry).
   */
  testedVersion: string | null;
  /** Run as root by `setup`: system packages, Node.js (needs internet). `$OSMOSIS_AGENT_USER` names the agent user. */
  installRoot: string;
  /** Run as the agent user by `setup`: the CLI itself, pinned (needs internet). */
  installUser: string;
  /** Prints the installed version (first line kept). */
  versionCommand: string;
  /** Model APIs the CLI can talk to. */
  apis: readonly ModelApi[];
  /** When set, the only model providers the CLI can use (e.g. gemini-cli speaks Gemini's own API). */
  providers?: readonly string[];
  /**
   * Variables the CLI reads the model key from (the key is exported under each): contracts'
   * HARNESS_MODEL_KEY_ENVS, which the run-config rules also read (see `keyEnvsOf`).
   */
  keyEnvs(model: AgentModel): string[];
  /** Variables pointing the CLI at the model's base URL, set when it is not the API's own. */
  baseUrlEnvs(model: AgentModel): string[];
  /** Further variables: run-shaping defaults, telemetry off, model settings some CLIs take from env or inline config. */
  env?(model: AgentModel, apiKey: string | undefined, mcp: McpServer[]): Record<string, string>;
  /** The `$OSMOSIS_MODEL` the command line passes. */
  modelName(model: AgentModel): string;
  /** A second credential the CLI itself needs, named by `harness_api_key_secret`. */
  harnessKeyEnv?: 'CURSOR_API_KEY';
  /** Settings and MCP config the CLI reads, written as the agent user before the run. */
  configFiles?(model: AgentModel, mcp: McpServer[]): ConfigFile[];
  /** Shell run as the agent user before the run (after the config files), e.g. folders the CLI expects. */
  prepare?: string;
  /** Where the task's skills_dir is copied (as Harbor does). */
  skillsTo?: string;
  /** The instruction as the CLI gets it (mini-swe-agent: the MCP servers appended, as Harbor does). */
  instruction?(text: string, mcp: McpServer[]): string;
  /**
   * Shell command, headless; `$OSMOSIS_INSTRUCTION` holds the instruction, `$OSMOSIS_MODEL` the
   * model. Its stdout and stderr go whole to `/logs/agent/<name>.txt`.
   */
  command: string;
  /**
   * When the CLI comes from the worker's bundle and runs otherwise than installed: the bundle's
   * command and the headless command that uses it (OpenHands: the bundle's Python, not the venv's),
   * and the programs the image must have beside the bundle (else the install, which brings them).
   */
  fromBundle?: { binary: string; command: string; imageNeeds?: readonly string[] };
  /** Shell run as the agent user after the CLI, also after a timeout: session files into /logs/agent. */
  collect?: string;
  /** Reader of `/logs/agent/<name>.txt`: events, and tokens where the CLI prints them. */
  output(): LineReader;
  /** Read when the output has no usage. */
  usageFiles?: UsageFiles[];
}
