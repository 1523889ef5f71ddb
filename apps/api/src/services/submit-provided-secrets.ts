// Values of a config's `[secrets]` names supplied with a submit (upstream's `secrets.provided`,
// from `osmosis benchmark submit --secrets-file` or the environment): only names the config
// lists may be supplied; each is encrypted like a secret record (scope `run`, bound to the run)
// into run_secret_values, handed to the run's agents by the worker, and deleted by a trigger
// when the run ends or is deleted (migration cli_compat). Values never reach a log, an event,
// a response or an error.
import type { RunConfig } from '@osmosis/contracts';
import { encryptSecretValue } from '@osmosis/core';
import type { Db } from '@osmosis/db';
import { ApiError } from '../errors.ts';
import { secretKeyRing } from '../secret-records.ts';

type Tx = Parameters<Parameters<Db['$transaction']>[0]>[0];

/** The id a supplied value stands in with among resolved records (it has no record). */
export const PROVIDED_SECRET_ID = 'provided';

/** The supplied values, after checking each name is one of the config's `[secrets] required`. */
export function checkProvidedSecrets(
  config: RunConfig,
  fileName: string,
  provided: Record<string, string>,
): Record<string, string> {
  const allowed = new Set(config.secrets?.required ?? []);
  const stray = Object.keys(provided).filter((name) => !allowed.has(name));
  if (stray.length > 0)
    throw ApiError.validation(
      `values were supplied for ${stray.join(', ')}, which ${stray.length === 1 ? 'is' : 'are'} not in [secrets] required of ${fileName}: only [secrets] names take a value at submit; other references need a stored record (osmosis secret set NAME)`,
      stray.map((name) => ({
        path: `body.secrets.provided.${name}`,
        message: `not listed in [secrets] required of ${fileName}`,
      })),
    );
  if (Object.keys(provided).length > 0) secretKeyRing(); // 503 now, before anything is written
  return provided;
}

/** Encrypt and store the supplied values of a new run (inside its creating transaction). */
export async function storeProvidedSecrets(
  tx: Tx,
  run: { runId: string; workspaceId: string },
  provided: Record<string, string>,
): Promise<void> {
  const entries = Object.entries(provided);
  if (entries.length === 0) return;
  const ring = secretKeyRing();
  await tx.runSecretValue.createMany({
    data: entries.map(([name, value]) => {
      const enc = encryptSecretValue(
        ring,
        { workspaceId: run.workspaceId, name, scope: 'run', ownerId: run.runId },
        value,
      );
      return {
        runId: run.runId,
        workspaceId: run.workspaceId,
        name,
        ciphertext: Buffer.from(enc.ciphertext),
        iv: Buffer.from(enc.iv),
        authTag: Buffer.from(enc.authTag),
        keyId: enc.keyId,
      };
    }),
  });
}
