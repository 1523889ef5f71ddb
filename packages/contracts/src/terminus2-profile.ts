import { z } from 'zod';

/**
 * The Harbor releases whose terminus-2 behaviour the platform reproduces, chosen per agent with
 * `[agents.params] reference` or by the operator (OSMOSIS_TERMINUS2_REFERENCE). docs/terminus-2.md,
 * "Behaviour profiles".
 */
export const TERMINUS2_PROFILES = ['harbor-0.6.4', 'harbor-0.9'] as const;
export const Terminus2Profile = z.enum(TERMINUS2_PROFILES, {
  error: (issue) =>
    `reference ${JSON.stringify(issue.input)} is not a terminus-2 behaviour profile: use one of ${TERMINUS2_PROFILES.map((p) => `"${p}"`).join(', ')}`,
});
export type Terminus2Profile = z.infer<typeof Terminus2Profile>;

/** The operator's default profile (worker setting). */
export const TERMINUS2_PROFILE_ENV = 'OSMOSIS_TERMINUS2_REFERENCE';

/** The profile of the scores the catalog cites (the Terminal-Bench leaderboard ran Harbor 0.6.4). */
export const DEFAULT_TERMINUS2_PROFILE: Terminus2Profile = 'harbor-0.6.4';

/** The Harbor release each profile reproduces, as recorded in an attempt's harness info. */
export const TERMINUS2_PROFILE_REFERENCES: Readonly<
  Record<Terminus2Profile, { project: string; version: string; commit: string }>
> = Object.freeze({
  'harbor-0.6.4': { project: 'harbor', version: '0.6.4', commit: '331dcba30efcc3fa8282a21de562a3834d6e6244' },
  'harbor-0.9': { project: 'harbor', version: '0.9.0', commit: '1b1dbc43729edff705071a797bb0f98a90cf62f5' },
});

/** The profile an agent runs with: its own `reference`, else the operator's default, else 0.6.4's. */
export function terminus2ProfileOf(
  reference: Terminus2Profile | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Terminus2Profile {
  if (reference) return reference;
  const configured = env[TERMINUS2_PROFILE_ENV];
  if (!configured) return DEFAULT_TERMINUS2_PROFILE;
  const parsed = Terminus2Profile.safeParse(configured);
  if (!parsed.success)
    throw new Error(`${TERMINUS2_PROFILE_ENV}=${configured}: ${parsed.error.issues[0]!.message}`);
  return parsed.data;
}
