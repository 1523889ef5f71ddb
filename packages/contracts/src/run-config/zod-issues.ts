// zod's issues on a run config → config issues whose messages name the table, the key and the fix.
// Never echoes a value that could be a secret (quoteConfigValue decides what may be quoted).
import { AgentParams } from '../agent-params.ts';
import { quoteConfigValue } from '../config-value-quote.ts';
import { nearest } from '../nearest.ts';
import { type ConfigPathPart, describeTable, formatConfigPath } from './config-path.ts';
import type { ConfigIssue } from './issues.ts';
import {
  AgentConfig,
  EndpointModelSpec,
  ExecutionConfig,
  ExperimentConfig,
  HostedModelSpec,
  KNOWN_HARNESSES,
  MODEL_TYPES,
  type ModelType,
  ProviderModelSpec,
  RUN_CONFIG_LIMITS,
  RunConfig,
  SecretsTable,
  TasksConfig,
  VerifierTable,
} from './schema.ts';

function getAt(root: unknown, path: readonly ConfigPathPart[]): unknown {
  let cur: unknown = root;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[p];
  }
  return cur;
}

function describeValueType(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'an array';
  if (v instanceof Date || (v !== null && typeof v === 'object' && v.constructor?.name === 'TomlDate'))
    return 'a date';
  if (v !== null && typeof v === 'object') return 'a table';
  // TOML's nan and inf are floats, but not numbers any field takes
  if (typeof v === 'number' && !Number.isFinite(v))
    return `${Number.isNaN(v) ? 'nan' : v > 0 ? 'inf' : '-inf'}, not a finite number`;
  if (typeof v === 'number') return Number.isInteger(v) ? 'an integer' : 'a float';
  if (typeof v === 'string') return 'a string';
  if (typeof v === 'boolean') return 'a boolean';
  return typeof v;
}

const modelShapes: Record<ModelType, readonly string[]> = {
  provider: Object.keys(ProviderModelSpec.shape),
  endpoint: Object.keys(EndpointModelSpec.shape),
  hosted: Object.keys(HostedModelSpec.shape),
};

/** Valid keys of the table at `tablePath` (indices included), given the raw document. */
function validKeysAt(raw: unknown, tablePath: readonly ConfigPathPart[]): readonly string[] {
  const names = tablePath.filter((p): p is string => typeof p === 'string').join('.');
  switch (names) {
    case '':
      return Object.keys(RunConfig.shape);
    case 'experiment':
      return Object.keys(ExperimentConfig.shape);
    case 'tasks':
      return Object.keys(TasksConfig.shape);
    case 'execution':
      return Object.keys(ExecutionConfig.shape);
    case 'agents':
      return Object.keys(AgentConfig.shape);
    case 'agents.params':
      return Object.keys(AgentParams.shape);
    case 'secrets':
      return Object.keys(SecretsTable.shape);
    case 'verifier':
      return Object.keys(VerifierTable.shape);
    case 'agents.model': {
      const type = getAt(raw, [...tablePath, 'type']);
      if (typeof type === 'string' && type in modelShapes) return modelShapes[type as ModelType];
      return [...new Set(Object.values(modelShapes).flat())];
    }
    default:
      return [];
  }
}

/** Example text for a required key, so the message can show the line to add. */
const KEY_EXAMPLES: Record<string, string> = {
  benchmark: 'benchmark = "terminal-bench-2-1"   # key, exact name or id',
  model: 'model = "openai/gpt-5.2"',
  api_key_secret: 'api_key_secret = "OPENAI_API_KEY"',
  base_url: 'base_url = "https://models.example.com/v1"',
  base_model: 'base_model = "Qwen/Qwen3-8B"',
  type: 'type = "provider"   # provider | endpoint | hosted',
};

const SECRET_FIELD_HELP =
  'must be the NAME of a secret record matching ^[A-Z][A-Z0-9_]*$ (e.g. OPENAI_API_KEY), never the value itself; ' +
  'store the value with `osmosis secret set NAME` and put NAME here';

export interface ZodIssueLike {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
  minimum?: number | bigint;
  maximum?: number | bigint;
  inclusive?: boolean;
  origin?: string;
  expected?: string;
  format?: string;
  values?: unknown[];
  note?: string;
  discriminator?: string;
}

function rangeText(key: string): string {
  const l = (RUN_CONFIG_LIMITS as Record<string, { min: number; max: number }>)[key];
  if (!l) return '';
  if (key === 'timeout_multiplier' || key === 'max_cost_usd')
    return `greater than ${l.min} and at most ${l.max}`;
  return `between ${l.min} and ${l.max}`;
}

export function issueFromZod(raw: unknown, zi: ZodIssueLike): ConfigIssue[] {
  const path = zi.path.filter((p): p is string | number => typeof p !== 'symbol');
  const key = String(path[path.length - 1] ?? '');
  const where = describeTable(path);
  const p = formatConfigPath(path);
  const value = getAt(raw, path);

  if (zi.code === 'unrecognized_keys') {
    const valid = validKeysAt(raw, path);
    return (zi.keys ?? []).map((k) => {
      const keyPath = [...path, k];
      const suggestion = nearest(k, valid);
      const isTopTable =
        path.length === 0 && getAt(raw, keyPath) !== null && typeof getAt(raw, keyPath) === 'object';
      let message: string;
      if (isTopTable) {
        const v = getAt(raw, keyPath);
        const brackets = (name: string) => (Array.isArray(v) ? `[[${name}]]` : `[${name}]`);
        message =
          `unknown table \`${brackets(k)}\`` +
          (suggestion
            ? `; did you mean \`${brackets(suggestion)}\`?`
            : `; valid tables: ${valid.map((x) => `[${x}]`).join(', ')}`);
      } else {
        message = `unknown key \`${k}\` in ${describeTable(keyPath)}`;
        const names = path.filter((x): x is string => typeof x === 'string').join('.');
        const otherModelType =
          names === 'agents.model'
            ? MODEL_TYPES.find((t) => modelShapes[t].includes(k) && !valid.includes(k))
            : undefined;
        if (suggestion) message += `; did you mean \`${suggestion}\`?`;
        else if (otherModelType)
          message += `; \`${k}\` belongs to type = "${otherModelType}" models; remove it or change the type`;
        else message += `; valid keys: ${valid.join(', ')}`;
      }
      return { code: 'UNKNOWN_KEY', path: formatConfigPath(keyPath), message };
    });
  }

  if (zi.code === 'invalid_type') {
    if (value === undefined) {
      if (path.length === 1 && path[0] === 'agents')
        return [
          {
            code: 'AGENT_COUNT',
            path: p,
            message:
              'the config has no [[agents]]: add at least one [[agents]] table (1 to 8) with its [agents.model]',
          },
        ];
      if (path.length === 1 && path[0] === 'experiment')
        return [
          {
            code: 'MISSING_KEY',
            path: p,
            message: `missing [experiment] table: add\n[experiment]\n${KEY_EXAMPLES.benchmark}`,
          },
        ];
      const example = KEY_EXAMPLES[key];
      return [
        {
          code: 'MISSING_KEY',
          path: p,
          message: `\`${key}\` is required in ${where}${example ? `: add ${example}` : ''}`,
        },
      ];
    }
    const integerKeys = ['attempts_per_task', 'max_concurrent_attempts', 'max_retries'];
    const expected =
      zi.expected === 'int' || (zi.expected === 'number' && integerKeys.includes(key))
        ? 'an integer'
        : zi.expected === 'number'
          ? 'a number'
          : zi.expected === 'object'
            ? 'a table'
            : zi.expected === 'array'
              ? 'an array'
              : zi.expected === 'string'
                ? 'a string'
                : zi.expected === 'record'
                  ? 'a table'
                  : (zi.expected ?? 'another type');
    if (path.length === 1 && path[0] === 'agents')
      return [
        {
          code: 'INVALID_TYPE',
          path: p,
          message:
            'agents must be an array of tables: write each agent as [[agents]] (double brackets), not [agents]',
        },
      ];
    const union = zi.expected === undefined && typeof value !== 'string';
    return [
      {
        code: 'INVALID_TYPE',
        path: p,
        message: `\`${key}\` in ${where} must be ${union ? 'a string, number or boolean' : expected} (got ${describeValueType(value)})`,
      },
    ];
  }

  if (zi.code === 'too_small' || zi.code === 'too_big') {
    if (path.length === 1 && path[0] === 'agents')
      return [
        {
          code: 'AGENT_COUNT',
          path: p,
          message:
            zi.code === 'too_small'
              ? 'the config has no [[agents]]: add at least one [[agents]] table (1 to 8)'
              : `the config has ${Array.isArray(value) ? value.length : 'too many'} [[agents]] tables; a run takes 1 to 8 agents: remove some or split the run`,
        },
      ];
    if (zi.origin === 'array' && zi.code === 'too_big')
      return [
        {
          code: 'OUT_OF_RANGE',
          path: p,
          message: `\`${key}\` in ${where} lists ${Array.isArray(value) ? value.length : 'too many'} names; at most ${zi.maximum} are allowed`,
        },
      ];
    if (zi.origin === 'array')
      return [
        {
          code: 'EMPTY_LIST',
          path: p,
          message: `\`${key}\` in ${where} is an empty list: name at least one entry, or remove the key to run the full benchmark`,
        },
      ];
    if (zi.origin === 'string')
      return [{ code: 'EMPTY_VALUE', path: p, message: `\`${key}\` in ${where} must not be empty` }];
    return [
      {
        code: 'OUT_OF_RANGE',
        path: p,
        message: `\`${key}\` in ${where} must be ${rangeText(key) || (zi.code === 'too_small' ? `at least ${zi.minimum}` : `at most ${zi.maximum}`)} (got ${String(value)})`,
      },
    ];
  }

  if (zi.code === 'invalid_format') {
    // an entry of `[secrets] required` / `[verifier] required`
    const list =
      path.length === 3 && (path[0] === 'secrets' || path[0] === 'verifier') && path[1] === 'required';
    if (list)
      return [
        {
          code: 'INVALID_SECRET_NAME',
          path: p,
          message: `entry ${Number(path[2]) + 1} of \`required\` in [${String(path[0])}] ${SECRET_FIELD_HELP}`,
        },
      ];
    if (key.endsWith('_secret'))
      return [
        {
          code: 'INVALID_SECRET_NAME',
          path: p,
          message: `\`${key}\` in ${where} ${SECRET_FIELD_HELP}${quoteConfigValue(path, value)}`,
        },
      ];
    if (key === 'model' || key === 'judge_model')
      return [
        {
          code: 'INVALID_MODEL',
          path: p,
          message: `\`${key}\` in ${where} must be written provider/model, e.g. "openai/gpt-5.2" or "anthropic/claude-sonnet-4-5"${quoteConfigValue(path, value)}`,
        },
      ];
    if (key === 'base_url')
      return [
        {
          code: 'INVALID_URL',
          path: p,
          message: `\`base_url\` in ${where} must be an http(s) URL such as "https://models.example.com/v1"${quoteConfigValue(path, value)}`,
        },
      ];
    if (path.includes('extra_headers'))
      return [
        {
          code: 'INVALID_HEADER_NAME',
          path: p,
          message: `header name \`${key}\` in ${where} is not a valid HTTP header name: use letters, digits and '-'`,
        },
      ];
    return [
      {
        code: 'INVALID_TYPE',
        path: p,
        message: `\`${key}\` in ${where}: ${zi.message}${quoteConfigValue(path, value)}`,
      },
    ];
  }

  if (zi.code === 'invalid_union' && zi.discriminator === 'type') {
    return [
      {
        code: 'INVALID_MODEL_TYPE',
        path: p,
        message:
          value === undefined
            ? `\`type\` is required in ${describeTable(path)}: add type = "provider", "endpoint" or "hosted"`
            : `\`type\` in ${describeTable(path)} must be "provider", "endpoint" or "hosted" (got ${JSON.stringify(value)})`,
      },
    ];
  }

  if (zi.code === 'invalid_value' && key === 'harness') {
    const suggestion = typeof value === 'string' ? nearest(value, KNOWN_HARNESSES) : undefined;
    return [
      {
        code: 'UNKNOWN_HARNESS',
        path: p,
        message:
          `unknown harness ${JSON.stringify(value)} in ${where}` +
          (suggestion ? `; did you mean "${suggestion}"?` : '') +
          ` Known harnesses: ${KNOWN_HARNESSES.join(', ')}`,
      },
    ];
  }

  if (zi.code === 'invalid_key' && path.includes('extra_headers'))
    return [
      {
        code: 'INVALID_HEADER_NAME',
        path: p,
        message: `header name ${JSON.stringify(key)} in ${where} is not a valid HTTP header name: use letters, digits and '-' (e.g. X-Request-Source)`,
      },
    ];

  if (zi.code === 'invalid_union' && (path[0] === 'env' || path[path.length - 2] === 'env'))
    return [
      {
        code: 'INVALID_TYPE',
        path: p,
        message: `env var \`${key}\` in ${where} must be a string (numbers and booleans are accepted), got ${describeValueType(value)}: write ${key} = "..."`,
      },
    ];

  return [
    {
      code: 'INVALID_TYPE',
      path: p,
      message: `\`${key}\` in ${where}: ${zi.message}${quoteConfigValue(path, value)}`,
    },
  ];
}
