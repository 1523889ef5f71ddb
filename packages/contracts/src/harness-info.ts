import { z } from 'zod';

/**
 * The reference terminus-2 the platform's terminus-2 reproduces (docs/terminus-2.md): Harbor
 * v0.6.4, and the SHA-256 of its published files that hold the reference's texts.
 */
export const TERMINUS2_REFERENCE = Object.freeze({
  project: 'harbor',
  version: '0.6.4',
  commit: '331dcba30efcc3fa8282a21de562a3834d6e6244',
  path: 'src/harbor/agents/terminus_2',
  files: Object.freeze({
    'terminus_2.py': '23b46827ef2e37842cf7a05655f14d53e8e5b3f56732ecd91948726d233e2932',
    'terminus_json_plain_parser.py': '6c82599ace43feab6ce3f95a351bd0cdab8f30abe8183fc578641f1d7215723b',
    'templates/terminus-json-plain.txt': '89a3dc3a15752b748a99fb907c9251ab31a464e13386583fb48476b078b54a34',
    'tmux_session.py': '59fbd4c0ac97a37d5e9f614877d5183252ccb50c9ef513ad91155314d93c3801',
  } as Record<string, string>),
});

/** The version of our terminus-2 that implements TERMINUS2_REFERENCE's behaviour. */
export const TERMINUS2_HARNESS_VERSION = '2.0.0-parity.1';

export const TemplateSetKind = z.enum(['default', 'custom', 'reference']);
export type TemplateSetKind = z.infer<typeof TemplateSetKind>;

/** The texts a run used. */
export const TemplateSetInfo = z.object({
  kind: TemplateSetKind,
  files: z
    .record(z.string(), z.string())
    .describe('SHA-256 of each file the set was read from (relative path → hex)'),
  digest: z.string().describe('SHA-256 of the rendered set (ids and texts), whatever it was read from'),
});
export type TemplateSetInfo = z.infer<typeof TemplateSetInfo>;

/** The model parameters as sent. */
export const EffectiveModelParams = z.object({
  temperature: z
    .number()
    .nullable()
    .describe(
      "Configured (or the profile's default) temperature; null when none is set and none sent (harbor-0.9)",
    ),
  temperature_sent: z
    .boolean()
    .describe(
      "False when the model takes no temperature but 1 and it was left out, as LiteLLM's drop_params does",
    ),
  reasoning_effort: z.string().nullable(),
  thinking_budget_tokens: z.number().int().nullable(),
  max_tokens: z.number().int().nullable(),
  prompt_caching: z.boolean(),
});
export type EffectiveModelParams = z.infer<typeof EffectiveModelParams>;

/** An agent tool an attempt ran with (terminus-2's tmux, an installed agent's CLI), and where it came from. */
export const ToolUse = z.object({
  name: z.string(),
  version: z
    .string()
    .nullable()
    .describe('As the tool printed it (`tmux 3.3a`, `2.1.332 (Claude Code)`); null when it printed none'),
  source: z
    .enum(['bundle', 'image', 'installed'])
    .describe(
      "`bundle`: prepared once by the worker and mounted read-only; `image`: the task image's own; `installed`: installed in the sandbox at setup (needs internet)",
    ),
});
export type ToolUse = z.infer<typeof ToolUse>;

/** What an attempt's harness ran with (attempts.harness_info). */
export const HarnessInfo = z.object({
  harness: z.string(),
  version: z.string(),
  reference: z.object({ project: z.string(), version: z.string(), commit: z.string() }).nullable(),
  templates: TemplateSetInfo.nullable(),
  model_params: EffectiveModelParams.nullable(),
  max_turns: z.number().int().nullable(),
  summarize_threshold_tokens: z.number().int().nullable(),
  tools: z
    .array(ToolUse)
    .optional()
    .describe('The agent tools it ran with (absent in attempts recorded before tools were reported)'),
  differences: z
    .array(z.string())
    .optional()
    .describe(
      'What the harness itself knows sets this attempt apart from its reference (each a reason it is not comparable)',
    ),
  warnings: z
    .array(z.string())
    .optional()
    .describe('What the operator should know and did not stop the attempt (an unknown context limit)'),
});
export type HarnessInfo = z.infer<typeof HarnessInfo>;
