// User accounts, made by the deployment's operators (`POST /v1/users`). Workspace admins invite;
// they never make accounts, so no answer of theirs tells whether an e-mail has one.
import { z } from 'zod';
import { dataOf, EmailAddress, Timestamp, Uuid } from './common.ts';
import { CreatedApiToken } from './tokens.ts';
import { WorkspaceName } from './workspaces.ts';

export const CreateUserBody = z
  .object({
    email: EmailAddress,
    display_name: z.string().trim().min(1).max(100).optional(),
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
    user: z.object({
      id: Uuid,
      email: z.string(),
      display_name: z.string().nullable(),
      created_at: Timestamp,
    }),
    workspace: z.object({ id: Uuid, name: z.string() }),
    token: CreatedApiToken,
    password_link: z.object({ link: z.string(), expires_at: Timestamp, emailed: z.boolean() }),
  }),
);
export type CreateUserResponse = z.infer<typeof CreateUserResponse>;
