// metadata.yaml of a Terminal-Bench 2 leaderboard submission (the leaderboard README's shape):
// agent_url, agent_display_name, agent_org_display_name and one `models` entry per model the run
// used. Every value is written as a YAML double-quoted scalar from JSON.stringify (a JSON string is
// a valid YAML 1.2 double-quoted scalar), so no name, however hostile, can add a key or a line.
import { type ExportRun, harborModelInfo, harborModelName } from './model.ts';

export interface SubmissionInfo {
  agentUrl: string;
  agentName: string;
  org: string;
}

/** Display names of the providers Harbor's model names use; others are shown as given. */
const PROVIDER_ORGS: Record<string, string> = {
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  google: 'Google',
  gemini: 'Google',
  vertex_ai: 'Google',
  xai: 'xAI',
  deepseek: 'DeepSeek',
  mistral: 'Mistral AI',
  moonshot: 'Moonshot AI',
  openrouter: 'OpenRouter',
  together_ai: 'Together AI',
};

export interface LeaderboardModel {
  model_name: string;
  model_provider: string;
  model_display_name: string;
  model_org_display_name: string;
}

/** One entry per distinct model of the run's agents (agents without a model have none). */
export function leaderboardModels(run: ExportRun): LeaderboardModel[] {
  const seen = new Map<string, LeaderboardModel>();
  for (const agent of run.agents) {
    const info = harborModelInfo(harborModelName(agent));
    if (!info) continue;
    const provider = info.provider ?? 'unknown';
    seen.set(`${provider}/${info.name}`, {
      model_name: info.name,
      model_provider: provider,
      model_display_name: info.name,
      model_org_display_name: PROVIDER_ORGS[provider] ?? provider,
    });
  }
  return [...seen.values()];
}

/** A YAML double-quoted scalar: JSON's escapes, plus \u escapes for what YAML does not allow raw (DEL, C1, line and paragraph separators, BOM). */
const q = (s: string) =>
  JSON.stringify(s).replace(
    /[\u007f-\u009f\u2028\u2029\ufeff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

export function metadataYaml(info: SubmissionInfo, models: LeaderboardModel[]): string {
  const lines = [
    `agent_url: ${q(info.agentUrl)}`,
    `agent_display_name: ${q(info.agentName)}`,
    `agent_org_display_name: ${q(info.org)}`,
    'models:',
    ...models.flatMap((m) => [
      `  - model_name: ${q(m.model_name)}`,
      `    model_provider: ${q(m.model_provider)}`,
      `    model_display_name: ${q(m.model_display_name)}`,
      `    model_org_display_name: ${q(m.model_org_display_name)}`,
    ]),
  ];
  return `${lines.join('\n')}\n`;
}

/** The submission folder's name the leaderboard asks for: `<agent>__<model(s)>`, one path segment. */
export function submissionFolder(info: SubmissionInfo, models: LeaderboardModel[]): string {
  const part = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|-+$/g, '') || 'x';
  return `${part(info.agentName)}__${models.map((m) => part(m.model_name)).join('+') || 'no-model'}`;
}
