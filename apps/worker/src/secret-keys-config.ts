// The worker's key ring (OSMOSIS_SECRET_KEYS): read with the rest of the config, checked when
// the config is built (a malformed ring stops the worker, naming the entry, never echoing key
// material), and parsed once per config for the code that decrypts. An unset ring is allowed:
// only attempts and webhook deliveries that need a secret fail, each with a message saying so.
import { parseSecretKeyRing, SECRET_KEYS_ENV, type SecretKeyRing, SecretKeyRingError } from '@osmosis/core';
import { z } from 'zod';

export const secretKeysConfigShape = {
  /** the key ring's text (`kid:base64key,…`); undefined when the worker has none */
  secretKeys: z.string().optional(),
};

export const SECRET_KEYS_ENV_NAMES = { secretKeys: SECRET_KEYS_ENV } as const;

/** What is wrong with a ring that is set, in the ring's own words; null when it is unset or fine. */
export function secretKeysProblem(spec: string | undefined): string | null {
  if (spec === undefined || spec.trim() === '') return null;
  try {
    parseSecretKeyRing(spec);
    return null;
  } catch (error) {
    if (error instanceof SecretKeyRingError) return error.message;
    throw error;
  }
}

const rings = new Map<string, SecretKeyRing>();

/**
 * The ring of a config (parsed once per ring text); throws SecretKeyRingError naming
 * OSMOSIS_SECRET_KEYS when the worker has none.
 */
export function secretKeyRingOf(config: { secretKeys?: string | undefined }): SecretKeyRing {
  const spec = config.secretKeys;
  const known = spec === undefined ? undefined : rings.get(spec);
  if (known) return known;
  const ring = parseSecretKeyRing(spec);
  rings.set(spec as string, ring);
  return ring;
}
