// Who-am-I: the identity behind a bearer token.
import { z } from 'zod';
import { dataOf, MemberRole, Timestamp, Uuid } from './common.ts';

export const UserSummary = z.object({
  id: Uuid.describe("The user's id"),
  email: z.string().describe("The user's e-mail"),
  display_name: z.string().nullable().describe("The user's display name; null when not set"),
});
export type UserSummary = z.infer<typeof UserSummary>;

export const WorkspaceSummary = z.object({
  id: Uuid.describe("The workspace's id"),
  name: z.string().describe("The workspace's name"),
  created_at: Timestamp.describe('When it was made'),
});
export type WorkspaceSummary = z.infer<typeof WorkspaceSummary>;

export const Me = z.object({
  user: UserSummary.describe('The user the token belongs to'),
  workspace: WorkspaceSummary.describe("The token's workspace"),
  role: MemberRole.describe("The caller's role in it, bounded by the token's max_role"),
  token: z
    .object({
      id: Uuid.describe("The token's id"),
      name: z.string().describe("The token's name"),
      prefix: z.string().describe("The token's first characters (`osm_AbCdEfGh`)"),
      expires_at: Timestamp.nullable().describe('When the token expires; null: never'),
      max_role: MemberRole.nullable()
        .optional()
        .describe("the token's role bound (null: none); `role` above is already bounded by it"),
      confined: z
        .boolean()
        .optional()
        .describe('the token works in this workspace only (an admin issued it when adding the user)'),
    })
    .describe('The token in use'),
});
export type Me = z.infer<typeof Me>;

export const MeResponse = dataOf(Me);
export type MeResponse = z.infer<typeof MeResponse>;
