// Which phase of an attempt receives each secret record of a run. One rule for the submit
// preview (API), the checks on where workspace records may go, and the worker that hands the
// values out:
// - agent: the records its config names (model key, harness key). terminus-2 calls its model
//   from the worker, so its model key never enters the sandbox; nop runs nothing.
// - verifier: the benchmark's required_secret_names, in the env of tests/test.sh only (never the
//   agent's, so neither an agent nor the oracle's solve.sh sees them). A benchmark graded by the
//   LLM judge runs no tests/test.sh: its required records go to no phase.
// - judge: execution.judge_api_key_secret, used by the worker to call the judge model (of a
//   benchmark graded by one; otherwise the key goes nowhere).
import { z } from 'zod';
import { agentSecretRefs, type HarnessName, type RunConfig } from './run-config.ts';

export const SecretPhase = z.enum(['agent', 'verifier', 'judge']);
export type SecretPhase = z.infer<typeof SecretPhase>;

export const SecretReceiver = z.object({
  phase: SecretPhase.describe('agent, verifier or judge'),
  agent_index: z.number().int().nullable().describe('the agent (0-based) for phase `agent`, else null'),
  in_sandbox: z
    .boolean()
    .describe(
      "true: the value is in the env of a process in the attempt's sandbox, where the benchmark's code and the agent's can read it; false: it stays in the worker, sent only as the credential of a model call",
    ),
});
export type SecretReceiver = z.infer<typeof SecretReceiver>;

export interface SecretRoutingInput {
  config: RunConfig;
  /** each agent's harness, the benchmark's default filled in */
  harnesses: readonly HarnessName[];
  requiredSecretNames: readonly string[];
  /** the benchmark is graded by the LLM judge in the worker (no tests/test.sh runs) */
  judgedByModel: boolean;
}

/** A receiver and the config key (or the benchmark) that makes it receive the record. */
export interface RoutedSecret extends SecretReceiver {
  path: string;
}

/** The records the verifier receives (tests/test.sh env). */
export function verifierSecretNames(
  requiredSecretNames: readonly string[],
  judgedByModel: boolean,
): string[] {
  return judgedByModel ? [] : [...new Set(requiredSecretNames)];
}

/** Every receiver of every record the run uses, by record name (a name may have several). */
export function routeSecrets(input: SecretRoutingInput): Map<string, RoutedSecret[]> {
  const routes = new Map<string, RoutedSecret[]>();
  const add = (name: string, route: RoutedSecret) => {
    const list = routes.get(name) ?? [];
    if (!list.some((r) => r.phase === route.phase && r.agent_index === route.agent_index)) list.push(route);
    routes.set(name, list);
  };
  input.config.agents.forEach((_, i) => {
    const harness = input.harnesses[i];
    for (const ref of agentSecretRefs(input.config, i)) {
      if (ref.path.startsWith('execution.')) continue;
      const workerSide =
        harness === 'nop' || (harness === 'terminus-2' && ref.path.endsWith('.model.api_key_secret'));
      add(ref.name, { phase: 'agent', agent_index: i, in_sandbox: !workerSide, path: ref.path });
    }
  });
  for (const name of verifierSecretNames(input.requiredSecretNames, input.judgedByModel))
    add(name, { phase: 'verifier', agent_index: null, in_sandbox: true, path: 'experiment.benchmark' });
  const judge = input.config.execution.judge_api_key_secret;
  if (judge && input.judgedByModel)
    add(judge, {
      phase: 'judge',
      agent_index: null,
      in_sandbox: false,
      path: 'execution.judge_api_key_secret',
    });
  return routes;
}
