// AES-256-GCM encryption of secret record values with a key ring.
//
// OSMOSIS_SECRET_KEYS="kid1:base64key,kid2:base64key": every key is 32 bytes (base64), ids are
// [A-Za-z0-9_.-]+. The FIRST key is the active one: new values are encrypted with it; any key in
// the ring decrypts the records stamped with its id. Rotation: put a new key first, keep the old
// ones, run the re-encrypt command (apps/api/src/reencrypt-secrets.ts), then drop the old keys.
//
// Each value is bound to its record (workspace, scope, owner, name) as additional authenticated
// data, so a ciphertext copied onto another record does not decrypt.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export const SECRET_KEYS_ENV = 'OSMOSIS_SECRET_KEYS';
const KEY_ID_PATTERN = /^[A-Za-z0-9_.-]+$/;
const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;

export interface SecretKeyRing {
  /** id of the key new values are encrypted with */
  activeKeyId: string;
  keys: ReadonlyMap<string, Buffer>;
}

/**
 * What a stored record needs to be decrypted (a `secrets` row has all of these). Scope `run`:
 * a value supplied at submit for one run (`run_secret_values`), its owner the run's id.
 */
export interface SecretRecordRef {
  workspaceId: string;
  name: string;
  scope: 'personal' | 'workspace' | 'run';
  ownerId: string | null;
}

export interface EncryptedSecret {
  ciphertext: Uint8Array;
  iv: Uint8Array;
  authTag: Uint8Array;
  keyId: string;
}

export class SecretKeyRingError extends Error {
  override name = 'SecretKeyRingError';
}

/** Errors name the key id or the position, never key material. */
export function parseSecretKeyRing(spec: string | undefined): SecretKeyRing {
  if (!spec || spec.trim() === '')
    throw new SecretKeyRingError(
      `${SECRET_KEYS_ENV} is not set: set it to "kid:base64key" with a 32-byte key, e.g. kid1:$(openssl rand -base64 32)`,
    );
  const keys = new Map<string, Buffer>();
  let activeKeyId: string | undefined;
  spec.split(',').forEach((entry, i) => {
    const item = entry.trim();
    const colon = item.indexOf(':');
    if (colon <= 0) throw new SecretKeyRingError(`${SECRET_KEYS_ENV} entry ${i + 1} is not "kid:base64key"`);
    const id = item.slice(0, colon);
    const encoded = item.slice(colon + 1);
    if (!KEY_ID_PATTERN.test(id))
      throw new SecretKeyRingError(`${SECRET_KEYS_ENV} entry ${i + 1}: key id must match ${KEY_ID_PATTERN}`);
    if (keys.has(id)) throw new SecretKeyRingError(`${SECRET_KEYS_ENV}: key id ${id} appears twice`);
    const key = Buffer.from(encoded, 'base64');
    if (key.length !== 32 || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded))
      throw new SecretKeyRingError(`${SECRET_KEYS_ENV}: key ${id} must be 32 bytes encoded as base64`);
    keys.set(id, key);
    activeKeyId ??= id;
  });
  return { activeKeyId: activeKeyId!, keys };
}

export function secretAad(ref: SecretRecordRef): Buffer {
  return Buffer.from(
    `osmosis-secret:v1\n${ref.workspaceId}\n${ref.scope}\n${ref.ownerId ?? ''}\n${ref.name}`,
  );
}

export function encryptSecretValue(
  ring: SecretKeyRing,
  ref: SecretRecordRef,
  value: string,
): EncryptedSecret {
  const key = ring.keys.get(ring.activeKeyId)!;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv);
  cipher.setAAD(secretAad(ref));
  const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return { ciphertext, iv, authTag: cipher.getAuthTag(), keyId: ring.activeKeyId };
}

/** Decrypt a stored record (e.g. a `secrets` row). Throws without revealing anything about the value. */
export function decryptSecretValue(ring: SecretKeyRing, record: SecretRecordRef & EncryptedSecret): string {
  const key = ring.keys.get(record.keyId);
  if (!key)
    throw new SecretKeyRingError(
      `secret ${record.name} is encrypted with key ${record.keyId}, which is not in ${SECRET_KEYS_ENV}`,
    );
  try {
    const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(record.iv));
    decipher.setAAD(secretAad(record));
    decipher.setAuthTag(Buffer.from(record.authTag));
    return Buffer.concat([decipher.update(Buffer.from(record.ciphertext)), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    throw new SecretKeyRingError(`secret ${record.name} could not be decrypted with key ${record.keyId}`);
  }
}

/** True when a record is not encrypted with the active key (a re-encrypt candidate). */
export function needsReencryption(ring: SecretKeyRing, record: { keyId: string }): boolean {
  return record.keyId !== ring.activeKeyId;
}

/** Decrypt with whatever key the record names and encrypt again with the active key. */
export function reencryptSecretValue(
  ring: SecretKeyRing,
  record: SecretRecordRef & EncryptedSecret,
): EncryptedSecret {
  return encryptSecretValue(ring, record, decryptSecretValue(ring, record));
}

/** A fresh key ring entry for docs and tests: `kid:base64key`. */
export function generateSecretKeySpec(keyId: string): string {
  return `${keyId}:${randomBytes(32).toString('base64')}`;
}
