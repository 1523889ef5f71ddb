// Whether an agent's score can be set beside the published terminus-2 scores: every scored
// attempt ran the platform's terminus-2 at the version that reproduces the reference, with the
// reference's texts (Harbor's files, recorded digests) and the reference's sampling. One reason
// per difference otherwise. docs/terminus-2.md, "Comparability".
import {
  type Comparability,
  DEFAULT_TERMINUS2_PROFILE,
  type HarnessInfo,
  TERMINUS2_DEFAULT_TEMPERATURE,
  TERMINUS2_HARNESS_VERSION,
  TERMINUS2_PROFILE_REFERENCES,
  TERMINUS2_REFERENCE,
} from '@osmosis/contracts';

export const COMPARABLE_WITH = `published terminus-2 scores (Harbor ${TERMINUS2_REFERENCE.version})`;
const REFERENCE_MAX_TURNS = 1_000_000;
const REFERENCE_SUMMARIZE_THRESHOLD = 8000;

/** The harness infos of an agent's scored attempts, each with how many attempts carried it (null: none recorded). */
export interface HarnessInfoCount {
  info: HarnessInfo | null;
  attempts: number;
}

function reasonsOf(info: HarnessInfo): string[] {
  const out: string[] = [];
  if (info.version !== TERMINUS2_HARNESS_VERSION)
    out.push(
      `harness version ${info.version} (the reference's behaviour is version ${TERMINUS2_HARNESS_VERSION})`,
    );
  const ran = info.reference;
  if (ran && ran.version !== TERMINUS2_PROFILE_REFERENCES[DEFAULT_TERMINUS2_PROFILE].version) {
    const profile = Object.entries(TERMINUS2_PROFILE_REFERENCES).find(([, r]) => r.version === ran.version);
    out.push(
      `behaviour profile ${profile?.[0] ?? `${ran.project} ${ran.version}`} (published scores: ${DEFAULT_TERMINUS2_PROFILE}; [agents.params] reference)`,
    );
  }
  const t = info.templates;
  if (!t) out.push('no template set recorded');
  else if (t.kind === 'default')
    out.push(
      "templates: the platform's own wording, not the reference's (the operator sets OSMOSIS_TERMINUS2_TEMPLATES to Harbor's files)",
    );
  else if (t.kind === 'custom') out.push('templates: a custom set, not the reference’s');
  else if (Object.entries(TERMINUS2_REFERENCE.files).some(([f, d]) => t.files[f] !== d))
    out.push('templates: reference files whose digests differ from the recorded ones');
  const p = info.model_params;
  if (!p) out.push('no model parameters recorded');
  else if (p.temperature !== TERMINUS2_DEFAULT_TEMPERATURE)
    out.push(
      `temperature ${p.temperature ?? 'not sent'} (published scores: ${TERMINUS2_DEFAULT_TEMPERATURE})`,
    );
  if (info.max_turns !== REFERENCE_MAX_TURNS)
    out.push(`turn limit ${info.max_turns ?? 'none'} (reference: ${REFERENCE_MAX_TURNS})`);
  if (info.summarize_threshold_tokens !== REFERENCE_SUMMARIZE_THRESHOLD)
    out.push(
      info.summarize_threshold_tokens === null
        ? 'summarization off (reference: on)'
        : `summarization at ${info.summarize_threshold_tokens} free tokens (reference: ${REFERENCE_SUMMARIZE_THRESHOLD})`,
    );
  out.push(...(info.differences ?? []));
  return out;
}

/**
 * null when the benchmark publishes no terminus-2 scores (its default harness is another, or it
 * is graded by an LLM judge, whose published numbers come from other setups).
 */
export function terminus2Comparability(input: {
  benchmarkDefaultHarness: string;
  judgeKind: string | null;
  harness: string;
  infos: readonly HarnessInfoCount[];
}): Comparability | null {
  if (input.benchmarkDefaultHarness !== 'terminus-2' || input.judgeKind) return null;
  const reasons: string[] = [];
  if (input.harness !== 'terminus-2') reasons.push(`harness ${input.harness} (published scores: terminus-2)`);
  else {
    const scored = input.infos.reduce((n, i) => n + i.attempts, 0);
    if (scored === 0) reasons.push('no scored attempt yet');
    const missing = input.infos.filter((i) => i.info === null).reduce((n, i) => n + i.attempts, 0);
    if (missing > 0)
      reasons.push(`${missing} attempt${missing === 1 ? '' : 's'} without a recorded harness version`);
    for (const { info } of input.infos)
      if (info) for (const r of reasonsOf(info)) if (!reasons.includes(r)) reasons.push(r);
  }
  return { comparable: reasons.length === 0, with: COMPARABLE_WITH, reasons };
}

/** Mean over tasks of each task's mean reward (errored attempts count 0): GDPVal's partial credit. */
export function meanTaskScore(tasks: ReadonlyArray<{ sum: number; attempts: number }>): number | null {
  const scored = tasks.filter((t) => t.attempts > 0);
  if (scored.length === 0) return null;
  return scored.reduce((s, t) => s + t.sum / t.attempts, 0) / scored.length;
}
