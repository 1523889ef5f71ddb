// User accounts, made by the deployment's operators (`POST /v1/users`). Workspace admins invite;
// they never make accounts, so no answer of theirs tells whether an e-mail has one.
import { z } from 'zod';
import { dataOf, EmailAddress, Timestamp, Uuid } from './common.ts';
import { CreatedApiToken } from './tokens.ts';
import { WorkspaceName } from './workspaces.ts';

export const CreateUserBody = z
  .object({
    email: EmailAddress.describe("The new account's e-mail"),
    display_name: z.string().trim().min(1).max(100).optional().describe("The new account's display name"),
    workspace: WorkspaceName.optional().describe(
      "the new user's own workspace (they own it); default: from the e-mail's local part",
    ),
  })
  .strict();
export type CreateUserBody = z.infer<typeof CreateUserBody>;

/**
 * The account, its own workspace and a token for it, shown once for the operator to hand over,
 * and a single-use link where the user chooses a password (`emailed`: sent to them, with SMTP).
 */
export const CreateUserResponse = dataOf(
  z.object({
    user: z
      .object({
        id: Uuid.describe('Its user id'),
        email: z.string().describe('Its e-mail'),
        display_name: z.string().nullable().describe('Its display name; null when not given'),
        created_at: Timestamp.describe('When it was made'),
      })
      .describe('The new account'),
    workspace: z
      .object({ id: Uuid.describe('Its id'), name: z.string().describe('Its name') })
      .describe("The user's own workspace (they own it)"),
    token: CreatedApiToken.describe(
      'A token of the user for that workspace, shown once: hand it over privately',
    ),
    password_link: z
      .object({
        link: z.string().describe('The link'),
        expires_at: Timestamp.describe('When it stops working'),
        emailed: z.boolean().describe('Whether it was e-mailed to the user (SMTP configured)'),
      })
      .describe('Single-use link where the user chooses a password'),
  }),
);
export type CreateUserResponse = z.infer<typeof CreateUserResponse>;
