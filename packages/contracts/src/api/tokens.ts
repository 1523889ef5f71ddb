// API tokens: bearer credentials of one user in one workspace. The secret is shown once.
import { z } from 'zod';
import { dataOf, listOf, MemberRole, PageQuery, Timestamp, Uuid } from './common.ts';

export const ApiTokenInfo = z.object({
  id: Uuid.describe("The token's id"),
  name: z.string().describe("The token's name"),
  prefix: z.string().describe('first characters of the token (`osm_AbCdEfGh`), to tell tokens apart'),
  user_id: Uuid.describe('The user it belongs to'),
  created_at: Timestamp.describe('When it was made'),
  last_used_at: Timestamp.nullable().describe('When it was last used; null when never'),
  expires_at: Timestamp.nullable().describe('When it expires; null: never'),
  revoked_at: Timestamp.nullable().describe('When it was revoked; null while valid'),
  max_role: MemberRole.nullable().describe(
    "the strongest role the token acts with; null: the member's role in the workspace",
  ),
  confined: z
    .boolean()
    .describe(
      "true for a token an admin received when adding a new user (and tokens made from it): it works only in its own workspace, never lists or reaches the user's other workspaces",
    ),
  parent_id: Uuid.nullable().describe('the token it was created with; null when the platform issued it'),
});
export type ApiTokenInfo = z.infer<typeof ApiTokenInfo>;

/** A token just created: the only time `token` (the secret) is ever returned. */
export const CreatedApiToken = ApiTokenInfo.extend({
  token: z
    .string()
    .describe('The secret (osm_…): shown only in this response, send it as `Authorization: Bearer`'),
  workspace: z
    .object({ id: Uuid.describe("The workspace's id"), name: z.string().describe("The workspace's name") })
    .optional()
    .describe("the workspace the token is for (the caller's, or the one named in the request)"),
});
export type CreatedApiToken = z.infer<typeof CreatedApiToken>;

/**
 * A token made with the caller's token (its parent). It never outlives its parent (`expires_at`
 * defaults to the parent's expiry and may not be later), never acts above the parent's role
 * bound (`role` defaults to it), and is revoked with it. `workspace` (name or id) makes it for
 * another workspace the caller is a member of; a confined token cannot do that.
 */
export const CreateTokenBody = z
  .object({
    name: z.string().trim().min(1).max(100).describe('A name to tell the token apart (1–100 characters)'),
    expires_at: Timestamp.optional().describe(
      "optional expiry; must be in the future and not after the caller's token expires",
    ),
    role: MemberRole.optional().describe(
      'the strongest role the new token acts with (a read-only CI token: `viewer`)',
    ),
    workspace: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .optional()
      .describe("another workspace of the caller (name or id); default: the caller's token's workspace"),
  })
  .strict();
export type CreateTokenBody = z.infer<typeof CreateTokenBody>;

export const ListTokensQuery = PageQuery.extend({
  scope: z
    .enum(['own', 'workspace'])
    .default('own')
    .describe(
      "`own` (default): the caller's tokens; `workspace`: every token of the workspace (admins, owners)",
    ),
});
export type ListTokensQuery = z.infer<typeof ListTokensQuery>;

export const TokenParams = z.object({
  id: z.string().min(1).describe("The token's id (`id` in GET /v1/tokens)"),
});
export const ListTokensResponse = listOf(ApiTokenInfo);
export const CreateTokenResponse = dataOf(CreatedApiToken);
export const RevokeTokenResponse = dataOf(ApiTokenInfo);
export type ListTokensResponse = z.infer<typeof ListTokensResponse>;
export type CreateTokenResponse = z.infer<typeof CreateTokenResponse>;
export type RevokeTokenResponse = z.infer<typeof RevokeTokenResponse>;
