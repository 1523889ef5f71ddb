// Secret records: write-only values, listed by name, scope, who set them and when.
import { z } from 'zod';
import { SECRET_NAME_PATTERN } from '../run-config.ts';
import { dataOf, listOf, PageQuery, Timestamp } from './common.ts';

export const SecretScope = z.enum(['personal', 'workspace']);
export type SecretScope = z.infer<typeof SecretScope>;

/** Largest accepted secret value (UTF-8 bytes). */
export const MAX_SECRET_VALUE_BYTES = 64 * 1024;

export const SecretNameString = z
  .string()
  .min(1)
  .max(128)
  .regex(SECRET_NAME_PATTERN, 'secret names match ^[A-Z][A-Z0-9_]*$ (e.g. OPENAI_API_KEY)');

export const SecretParams = z.object({
  name: SecretNameString.describe("The record's name (^[A-Z][A-Z0-9_]*$, e.g. OPENAI_API_KEY)"),
});
export type SecretParams = z.infer<typeof SecretParams>;

export const ListSecretsQuery = PageQuery.extend({
  scope: z
    .enum(['all', 'workspace', 'personal'])
    .default('all')
    .describe('all (default), workspace or personal records'),
});
export type ListSecretsQuery = z.infer<typeof ListSecretsQuery>;

/** PUT /v1/secrets/:name — create or replace. The value is never returned. */
export const SetSecretBody = z.strictObject({
  value: z
    .string()
    .min(1, 'the value is empty')
    .refine((v) => Buffer.byteLength(v, 'utf8') <= MAX_SECRET_VALUE_BYTES, {
      message: `the value is longer than ${MAX_SECRET_VALUE_BYTES} bytes`,
    })
    .describe('The secret value (at most 64 KiB); stored encrypted, never returned'),
  scope: SecretScope.default('personal').describe(
    "personal (default: yours only) or workspace (admins and owners; every member's runs may use it)",
  ),
});
export type SetSecretBody = z.infer<typeof SetSecretBody>;

/** DELETE /v1/secrets/:name?scope= */
export const DeleteSecretQuery = z.object({
  scope: SecretScope.default('personal').describe(
    'Which record of that name: personal (default) or workspace',
  ),
});
export type DeleteSecretQuery = z.infer<typeof DeleteSecretQuery>;

export const SecretUser = z.object({
  id: z.string().describe("The user's id"),
  email: z.string().describe("The user's e-mail"),
  display_name: z.string().nullable().describe("The user's display name; null when not set"),
});

/** What anyone who can see a record learns about it: never its value. */
export const SecretInfo = z.object({
  id: z.string().describe("the record's id (upstream's `id`)"),
  name: z.string().describe("The record's name"),
  scope: SecretScope.describe("personal (its owner's only) or workspace (every member's runs)"),
  owner: SecretUser.nullable().describe('the owner of a personal record; null for workspace records'),
  set_by: SecretUser.nullable().describe('Who set its current value; null when that account is gone'),
  creator_name: z
    .string()
    .nullable()
    .describe("who created the record (display name, else e-mail), as upstream's `creator_name`"),
  updater_name: z
    .string()
    .nullable()
    .describe("who set its current value (display name, else e-mail), as upstream's `updater_name`"),
  created_at: Timestamp.describe('When it was created'),
  updated_at: Timestamp.describe('When its value was last set'),
});
export type SecretInfo = z.infer<typeof SecretInfo>;

export const ListSecretsResponse = listOf(SecretInfo);
export type ListSecretsResponse = z.infer<typeof ListSecretsResponse>;

export const SetSecretResponse = dataOf(
  SecretInfo.extend({
    created: z.boolean().describe('True when the record is new, false when its value was replaced'),
  }),
);
export type SetSecretResponse = z.infer<typeof SetSecretResponse>;

export const DeleteSecretResponse = dataOf(
  z.object({
    name: z.string().describe("The record's name"),
    scope: SecretScope.describe('Its scope'),
    deleted: z.literal(true).describe('Always true'),
  }),
);
export type DeleteSecretResponse = z.infer<typeof DeleteSecretResponse>;
