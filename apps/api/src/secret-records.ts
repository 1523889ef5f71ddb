// Secret records on the API side: the key ring from OSMOSIS_SECRET_KEYS, upsert/delete under an
// advisory lock (one record per workspace+scope+owner+name), and resolution of record names for
// a submitter (a personal record overrides a workspace one). Values are encrypted before they
// reach Prisma and are never logged, returned or put into an error.
import {
  encryptSecretValue,
  parseSecretKeyRing,
  SECRET_KEYS_ENV,
  type SecretKeyRing,
  SecretKeyRingError,
} from '@osmosis/core';
import type { Db } from '@osmosis/db';
import { ApiError } from './errors.ts';

type Scope = 'personal' | 'workspace';
type Tx = Parameters<Parameters<Db['$transaction']>[0]>[0];

let cached: { spec: string | undefined; ring: SecretKeyRing } | undefined;

/** The key ring from the environment (re-read when the variable changes); 503 when unset or bad. */
export function secretKeyRing(env: NodeJS.ProcessEnv = process.env): SecretKeyRing {
  const spec = env[SECRET_KEYS_ENV];
  if (cached && cached.spec === spec) return cached.ring;
  try {
    const ring = parseSecretKeyRing(spec);
    cached = { spec, ring };
    return ring;
  } catch (error) {
    if (error instanceof SecretKeyRingError)
      throw new ApiError('UNAVAILABLE', `secret storage is not configured on the platform: ${error.message}`);
    throw error;
  }
}

function lockKey(workspaceId: string, scope: Scope, ownerId: string | null, name: string): string {
  return `secret:${workspaceId}:${scope}:${ownerId ?? ''}:${name}`;
}

async function lockRecord(tx: Tx, key: string): Promise<void> {
  await tx.$executeRawUnsafe('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', key);
}

export interface SecretRow {
  id: string;
  workspaceId: string;
  name: string;
  scope: Scope;
  ownerId: string | null;
  setById: string;
  createdById: string | null;
  keyId: string;
  createdAt: Date;
  updatedAt: Date;
}

/** The columns of a record that may leave this module: never the ciphertext, IV or tag. */
export const SECRET_ROW_SELECT = {
  id: true,
  workspaceId: true,
  name: true,
  scope: true,
  ownerId: true,
  setById: true,
  createdById: true,
  keyId: true,
  createdAt: true,
  updatedAt: true,
} as const;

/** Create or replace a record. Returns the row (without ciphertext) and whether it was created. */
export async function upsertSecret(
  db: Db,
  input: { workspaceId: string; name: string; scope: Scope; userId: string; value: string },
): Promise<{ row: SecretRow; created: boolean }> {
  const ring = secretKeyRing();
  const ownerId = input.scope === 'personal' ? input.userId : null;
  const ref = { workspaceId: input.workspaceId, name: input.name, scope: input.scope, ownerId };
  const enc = encryptSecretValue(ring, ref, input.value);
  const data = {
    ciphertext: Buffer.from(enc.ciphertext),
    iv: Buffer.from(enc.iv),
    authTag: Buffer.from(enc.authTag),
    keyId: enc.keyId,
    setById: input.userId,
  };
  return db.$transaction(async (tx) => {
    await lockRecord(tx, lockKey(input.workspaceId, input.scope, ownerId, input.name));
    const existing = await tx.secret.findFirst({
      where: { workspaceId: input.workspaceId, name: input.name, scope: input.scope, ownerId },
      select: { id: true },
    });
    if (existing) {
      const row = await tx.secret.update({ where: { id: existing.id }, data, select: SECRET_ROW_SELECT });
      return { row: row as SecretRow, created: false };
    }
    const row = await tx.secret.create({
      data: { ...ref, ...data, createdById: input.userId },
      select: SECRET_ROW_SELECT,
    });
    return { row: row as SecretRow, created: true };
  });
}

export async function deleteSecret(
  db: Db,
  input: { workspaceId: string; name: string; scope: Scope; userId: string },
): Promise<boolean> {
  const ownerId = input.scope === 'personal' ? input.userId : null;
  const result = await db.secret.deleteMany({
    where: { workspaceId: input.workspaceId, name: input.name, scope: input.scope, ownerId },
  });
  return result.count > 0;
}

export interface ResolvedSecret {
  id: string;
  name: string;
  scope: Scope;
}

/**
 * The records `names` resolve to for `userId`: their own personal record if any, else the
 * workspace record. Names with neither are absent from the map.
 */
export async function resolveSecretsForUser(
  db: Db | Tx,
  workspaceId: string,
  userId: string,
  names: readonly string[],
): Promise<Map<string, ResolvedSecret>> {
  const resolved = new Map<string, ResolvedSecret>();
  if (names.length === 0) return resolved;
  const rows = await db.secret.findMany({
    where: {
      workspaceId,
      name: { in: [...new Set(names)] },
      OR: [{ scope: 'workspace' }, { scope: 'personal', ownerId: userId }],
    },
    select: { id: true, name: true, scope: true },
    orderBy: [{ updatedAt: 'desc' }],
  });
  for (const row of rows) {
    const current = resolved.get(row.name);
    if (!current || (current.scope === 'workspace' && row.scope === 'personal'))
      resolved.set(row.name, { id: row.id, name: row.name, scope: row.scope as Scope });
  }
  return resolved;
}
