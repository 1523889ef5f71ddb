// Members of the caller's workspace. Inviting, changing and removing: admins and owners;
// granting or revoking `owner`: owners only; the last owner stays. An invitee becomes a member
// only by accepting the invitation's code with a token of their own.
import { z } from 'zod';
import { dataOf, EmailAddress, listOf, MemberRole, PageQuery, Timestamp, Uuid } from './common.ts';

export const Member = z.object({
  user_id: Uuid.describe("The member's user id"),
  email: z.string().describe("The member's e-mail"),
  display_name: z.string().nullable().describe("The member's display name; null when not set"),
  role: MemberRole.describe('owner, admin, member or viewer'),
  joined_at: Timestamp.describe('When they became a member'),
});
export type Member = z.infer<typeof Member>;

export const ListMembersQuery = PageQuery;
export const ListMembersResponse = listOf(Member);
export type ListMembersResponse = z.infer<typeof ListMembersResponse>;

/**
 * Inviting a user (admins and owners; the owner role: owners only). No one becomes a member here:
 * the answer is an invitation and its code, alike whether or not the e-mail has an account, and
 * the invitee accepts the code with a token of their own (`POST /v1/invitations/accept`).
 */
export const AddMemberBody = z
  .object({
    email: EmailAddress.describe("The invitee's e-mail"),
    role: MemberRole.default('member').describe(
      'The role they get on accepting (default member; owner: owners only)',
    ),
    expires_in_days: z.number().int().min(1).max(30).default(7).describe('days until the code expires'),
  })
  .strict();
export type AddMemberBody = z.infer<typeof AddMemberBody>;

/** Open invitations a workspace may hold at once (inviting again replaces an e-mail's). */
export const MAX_OPEN_INVITATIONS_PER_WORKSPACE = 500;

export const Invitation = z.object({
  id: Uuid.describe("The invitation's id"),
  email: z.string().describe('The invited e-mail'),
  role: MemberRole.describe('The role it grants'),
  invited_by: z
    .string()
    .nullable()
    .describe('the e-mail of the admin who invited (null once their account is gone)'),
  created_at: Timestamp.describe('When it was made'),
  expires_at: Timestamp.describe('When its code stops working'),
});
export type Invitation = z.infer<typeof Invitation>;

/** The invitation and its code: shown only in this answer, for the admin to hand over privately. */
/** `link`: the invitation's page, where the invitee accepts, or makes an account for the invited e-mail. */
export const AddMemberResponse = dataOf(
  z.object({
    invitation: Invitation.describe('The invitation'),
    code: z.string().describe("The invitation's code, shown only here: hand it over privately"),
    link: z
      .string()
      .describe(
        "The invitation's page, where the invitee accepts or makes an account for the invited e-mail",
      ),
    emailed: z.boolean().describe('Whether the link was e-mailed to the invitee (SMTP configured)'),
  }),
);
export type AddMemberResponse = z.infer<typeof AddMemberResponse>;

export const ListInvitationsQuery = PageQuery;
export const ListInvitationsResponse = listOf(Invitation);
export type ListInvitationsResponse = z.infer<typeof ListInvitationsResponse>;

export const InvitationParams = z.object({ invitationId: z.string().min(1).describe("The invitation's id") });
export const InvitationResponse = dataOf(Invitation);
export type InvitationResponse = z.infer<typeof InvitationResponse>;

export const AcceptInvitationBody = z
  .object({ code: z.string().trim().min(1).max(200).describe("The invitation's code") })
  .strict();
export type AcceptInvitationBody = z.infer<typeof AcceptInvitationBody>;

/** The workspace joined and the role in it; a token for it: `POST /v1/tokens` with `workspace`. */
export const AcceptInvitationResponse = dataOf(
  z.object({
    workspace: z
      .object({ id: Uuid.describe('Its id'), name: z.string().describe('Its name') })
      .describe('The workspace joined'),
    role: MemberRole.describe("The caller's role in it"),
    joined_at: Timestamp.describe('When the caller joined'),
  }),
);
export type AcceptInvitationResponse = z.infer<typeof AcceptInvitationResponse>;

export const MemberParams = z.object({ userId: z.string().min(1).describe("The member's user id") });
export type MemberParams = z.infer<typeof MemberParams>;

export const UpdateMemberBody = z
  .object({ role: MemberRole.describe('The new role (granting or revoking owner: owners only)') })
  .strict();
export type UpdateMemberBody = z.infer<typeof UpdateMemberBody>;

export const MemberResponse = dataOf(Member);
export type MemberResponse = z.infer<typeof MemberResponse>;
