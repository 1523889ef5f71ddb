// Who-am-I: the identity behind a bearer token.
import { z } from 'zod';
import { dataOf, MemberRole, Timestamp, Uuid } from './common.ts';

export const UserSummary = z.object({
  id: Uuid,
  email: z.string(),
  display_name: z.string().nullable(),
});
export type UserSummary = z.infer<typeof UserSummary>;

export const WorkspaceSummary = z.object({
  id: Uuid,
  name: z.string(),
  created_at: Timestamp,
});
export type WorkspaceSummary = z.infer<typeof WorkspaceSummary>;

export const Me = z.object({
  user: UserSummary,
  workspace: WorkspaceSummary,
  role: MemberRole,
  token: z.object({
    id: Uuid,
    name: z.string(),
    prefix: z.string(),
    expires_at: Timestamp.nullable(),
    max_role: MemberRole.nullable()
      .optional()
      .describe("the token's role bound (null: none); `role` above is already bounded by it"),
    confined: z
      .boolean()
      .optional()
      .describe('the token works in this workspace only (an admin issued it when adding the user)'),
  }),
});
export type Me = z.infer<typeof Me>;

export const MeResponse = dataOf(Me);
export type MeResponse = z.infer<typeof MeResponse>;
