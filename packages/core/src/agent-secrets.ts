// The secret records an agent's sandbox receives as env vars: the ONE rule. Submit stores the
// result in RunAgent.spec.secret_env and the worker reads it from there (it works it out from the
// run's config only for an agent row without a spec).
import { agentSecretRefs, type RunConfig } from '@osmosis/contracts';

/** Names the agent `index` references (model key, harness key, `[secrets]`), minus the judge's key. */
export function agentSecretNames(config: RunConfig, index: number): string[] {
  return [
    ...new Set(
      agentSecretRefs(config, index)
        .filter((ref) => !ref.path.startsWith('execution.'))
        .map((ref) => ref.name),
    ),
  ];
}
