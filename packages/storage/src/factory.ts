// The one place that turns settings into the platform's ArtifactStorage: OSMOSIS_STORAGE picks
// the backend (`local`, the default, or `s3`); the OSMOSIS_S3_* settings configure the bucket.
// Settings are checked as a whole so that a wrong combination stops the process at startup with
// the setting named, instead of failing the first upload an hour later.
import { createLocalStorage, DEFAULT_DATA_DIR } from './local.ts';
import { S3Storage, type S3StorageConfig } from './s3.ts';
import { type ArtifactStorage, StorageKeyError, validateKey } from './storage.ts';

export const STORAGE_KINDS = ['local', 's3'] as const;

export type StorageSettings = { kind: 'local'; root: string } | { kind: 's3'; s3: S3StorageConfig };

export class StorageSettingsError extends Error {
  readonly setting: string;
  constructor(setting: string, problem: string) {
    super(`${setting}: ${problem}`);
    this.name = 'StorageSettingsError';
    this.setting = setting;
  }
}

const S3_SETTINGS = [
  'OSMOSIS_S3_BUCKET',
  'OSMOSIS_S3_ENDPOINT',
  'OSMOSIS_S3_REGION',
  'OSMOSIS_S3_PREFIX',
  'OSMOSIS_S3_FORCE_PATH_STYLE',
  'OSMOSIS_S3_ACCESS_KEY_ID',
  'OSMOSIS_S3_SECRET_ACCESS_KEY',
] as const;

/** S3's bucket naming rule (3–63 lower-case letters, digits, dots, hyphens; no IP address). */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

function setting(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const value = setting(env, name)?.toLowerCase();
  if (value === undefined) return undefined;
  if (['1', 'true', 'yes'].includes(value)) return true;
  if (['0', 'false', 'no'].includes(value)) return false;
  throw new StorageSettingsError(name, `must be true or false, not ${JSON.stringify(value)}`);
}

/** The storage settings in `env`; throws StorageSettingsError naming the first bad setting. */
export function storageSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): StorageSettings {
  const kind = setting(env, 'OSMOSIS_STORAGE') ?? 'local';
  if (!(STORAGE_KINDS as readonly string[]).includes(kind))
    throw new StorageSettingsError('OSMOSIS_STORAGE', `must be "local" or "s3", not ${JSON.stringify(kind)}`);
  if (kind === 'local') {
    const stray = S3_SETTINGS.find((name) => setting(env, name) !== undefined);
    if (stray)
      throw new StorageSettingsError(
        stray,
        'is set but OSMOSIS_STORAGE is "local" (the default); set OSMOSIS_STORAGE=s3 to use the bucket, or unset it',
      );
    return { kind: 'local', root: setting(env, 'OSMOSIS_DATA_DIR') ?? DEFAULT_DATA_DIR };
  }
  const bucket = setting(env, 'OSMOSIS_S3_BUCKET');
  if (!bucket) throw new StorageSettingsError('OSMOSIS_S3_BUCKET', 'is required when OSMOSIS_STORAGE=s3');
  if (!BUCKET.test(bucket) || /^\d+\.\d+\.\d+\.\d+$/.test(bucket))
    throw new StorageSettingsError(
      'OSMOSIS_S3_BUCKET',
      `${JSON.stringify(bucket)} is not a bucket name (3-63 lower-case letters, digits, "." and "-")`,
    );
  const endpoint = setting(env, 'OSMOSIS_S3_ENDPOINT');
  if (endpoint !== undefined) {
    let url: URL | null = null;
    try {
      url = new URL(endpoint);
    } catch {}
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      throw new StorageSettingsError(
        'OSMOSIS_S3_ENDPOINT',
        `must be an http:// or https:// URL, not ${JSON.stringify(endpoint)}`,
      );
    if (url.username || url.password)
      throw new StorageSettingsError(
        'OSMOSIS_S3_ENDPOINT',
        'must not carry credentials; use OSMOSIS_S3_ACCESS_KEY_ID and OSMOSIS_S3_SECRET_ACCESS_KEY',
      );
  }
  const region = setting(env, 'OSMOSIS_S3_REGION') ?? (endpoint ? 'us-east-1' : undefined);
  if (!region)
    throw new StorageSettingsError(
      'OSMOSIS_S3_REGION',
      'is required for AWS S3 (when OSMOSIS_S3_ENDPOINT is not set)',
    );
  let prefix = setting(env, 'OSMOSIS_S3_PREFIX') ?? '';
  if (prefix !== '' && !prefix.endsWith('/')) prefix += '/';
  try {
    validateKey(prefix, { prefix: true });
  } catch (error) {
    const why = error instanceof StorageKeyError ? error.message : String(error);
    throw new StorageSettingsError('OSMOSIS_S3_PREFIX', why);
  }
  const accessKeyId = setting(env, 'OSMOSIS_S3_ACCESS_KEY_ID');
  const secretAccessKey = setting(env, 'OSMOSIS_S3_SECRET_ACCESS_KEY');
  if (accessKeyId && !secretAccessKey)
    throw new StorageSettingsError(
      'OSMOSIS_S3_SECRET_ACCESS_KEY',
      'is required when OSMOSIS_S3_ACCESS_KEY_ID is set',
    );
  if (secretAccessKey && !accessKeyId)
    throw new StorageSettingsError(
      'OSMOSIS_S3_ACCESS_KEY_ID',
      'is required when OSMOSIS_S3_SECRET_ACCESS_KEY is set',
    );
  return {
    kind: 's3',
    s3: {
      bucket,
      endpoint,
      region,
      prefix,
      forcePathStyle: flag(env, 'OSMOSIS_S3_FORCE_PATH_STYLE') ?? endpoint !== undefined,
      credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    },
  };
}

/** The storage the settings describe. */
export function createStorage(settings: StorageSettings): ArtifactStorage {
  return settings.kind === 's3' ? new S3Storage(settings.s3) : createLocalStorage(settings.root);
}

/** The platform's storage as configured by the environment: the local folder unless OSMOSIS_STORAGE=s3. */
export function createStorageFromEnv(env: NodeJS.ProcessEnv = process.env): ArtifactStorage {
  return createStorage(storageSettingsFromEnv(env));
}

let shared: { signature: string; storage: ArtifactStorage } | null = null;

/**
 * The storage of process.env, made once and kept while the settings stay the same (an S3 client
 * keeps its connections; making one per request would not).
 */
export function storageFromProcessEnv(): ArtifactStorage {
  const settings = storageSettingsFromEnv(process.env);
  const signature = JSON.stringify(settings);
  if (shared?.signature !== signature) shared = { signature, storage: createStorage(settings) };
  return shared.storage;
}

/** The configured storage, with its local folder (for OSMOSIS_STORAGE=local) at `dataDir`. */
export function storageForDataDir(dataDir: string, env: NodeJS.ProcessEnv = process.env): ArtifactStorage {
  return createStorageFromEnv({ ...env, OSMOSIS_DATA_DIR: dataDir });
}

/** What is wrong with the storage settings in `env`, as a line naming the setting, or null. */
export function storageSettingsProblem(env: NodeJS.ProcessEnv = process.env): string | null {
  try {
    storageSettingsFromEnv(env);
    return null;
  } catch (error) {
    if (error instanceof StorageSettingsError) return error.message;
    throw error;
  }
}
