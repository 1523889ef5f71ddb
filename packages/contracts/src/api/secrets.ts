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

export const SecretParams = z.object({ name: SecretNameString });
export type SecretParams = z.infer<typeof SecretParams>;

export const ListSecretsQuery = PageQuery.extend({
  scope: z.enum(['all', 'workspace', 'personal']).default('all'),
});
export type ListSecretsQuery = z.infer<typeof ListSecretsQuery>;

/** PUT /v1/secrets/:name — create or replace. The value is never returned. */
export const SetSecretBody = z.strictObject({
  value: z
    .string()
    .min(1, 'the value is empty')
    .refine((v) => Buffer.byteLength(v, 'utf8') <= MAX_SECRET_VALUE_BYTES, {
      message: `the value is longer than ${MAX_SECRET_VALUE_BYTES} bytes`,
    }),
  scope: SecretScope.default('personal'),
});
export type SetSecretBody = z.infer<typeof SetSecretBody>;

/** DELETE /v1/secrets/:name?scope= */
export const DeleteSecretQuery = z.object({ scope: SecretScope.default('personal') });
export type DeleteSecretQuery = z.infer<typeof DeleteSecretQuery>;

export const SecretUser = z.object({
  id: z.string(),
  email: z.string(),
  display_name: z.string().nullable(),
});

/** What anyone who can see a record learns about it: never its value. */
export const SecretInfo = z.object({
  id: z.string().describe("the record's id (upstream's `id`)"),
  name: z.string(),
  scope: SecretScope,
  owner: SecretUser.nullable().describe('the owner of a personal record; null for workspace records'),
  set_by: SecretUser.nullable(),
  creator_name: z
    .string()
    .nullable()
    .describe("who created the record (display name, else e-mail), as upstream's `creator_name`"),
  updater_name: z
    .string()
    .nullable()
    .describe("who set its current value (display name, else e-mail), as upstream's `updater_name`"),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type SecretInfo = z.infer<typeof SecretInfo>;

export const ListSecretsResponse = listOf(SecretInfo);
export type ListSecretsResponse = z.infer<typeof ListSecretsResponse>;

export const SetSecretResponse = dataOf(SecretInfo.extend({ created: z.boolean() }));
export type SetSecretResponse = z.infer<typeof SetSecretResponse>;

export const DeleteSecretResponse = dataOf(
  z.object({ name: z.string(), scope: SecretScope, deleted: z.literal(true) }),
);
export type DeleteSecretResponse = z.infer<typeof DeleteSecretResponse>;
