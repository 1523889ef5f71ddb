// Signing in as a person: passwords, single-use password links, and the CLI's device login.
//
// The device login follows RFC 8628 with the request and response shapes of the upstream Osmosis
// CLI (osmosis-sdk-python, `osmosis_ai/platform/auth/flow.py`): `POST /api/cli/device/authorize`
// with `{deviceName}`, then `POST /api/cli/device/token` with `{device_code}` until it answers the
// token; a pending, slowed, expired or denied code is an HTTP 400 `{error: <code>}` (OAuth's error
// shape, not the /v1 one: that is what the CLI reads).
import { z } from 'zod';
import { dataOf, EmailAddress, MemberRole, Timestamp, Uuid } from './common.ts';

/** Shortest and longest password (characters); long passphrases are welcome, megabytes are not. */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;

export const Password = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH, `must be at most ${PASSWORD_MAX_LENGTH} characters`)
  .refine((value) => value.trim().length > 0, 'must not be only spaces');

// ---- password links (operators) ---------------------------------------------------------------

export const CreatePasswordLinkBody = z
  .object({ email: EmailAddress.describe("The account's e-mail") })
  .strict();
export type CreatePasswordLinkBody = z.infer<typeof CreatePasswordLinkBody>;

/** A single-use link that sets the account's password; `emailed`: sent to the user too (SMTP). */
export const CreatePasswordLinkResponse = dataOf(
  z.object({
    user: z
      .object({ id: Uuid.describe('Its user id'), email: z.string().describe('Its e-mail') })
      .describe('The account'),
    link: z.string().describe('The single-use link that sets the password: hand it over privately'),
    expires_at: Timestamp.describe('When the link stops working'),
    emailed: z.boolean().describe('Whether the link was e-mailed to the user (SMTP configured)'),
  }),
);
export type CreatePasswordLinkResponse = z.infer<typeof CreatePasswordLinkResponse>;

// ---- the CLI's device login (RFC 8628, upstream's shapes) ---------------------------------------

/** How long a device code waits for approval, and the least time between two polls. */
export const DEVICE_CODE_TTL_SECONDS = 600;
export const DEVICE_POLL_INTERVAL_SECONDS = 5;
/** Lifetime of a token a device login issues (upstream assumes 90 days when none is given). */
export const DEVICE_TOKEN_LIFETIME_DAYS = 90;

/** Upstream sends `deviceName` (the host name); `workspace` is this CLI's `--workspace`. */
export const DeviceAuthorizeBody = z
  .object({
    deviceName: z
      .string()
      .max(1000)
      .optional()
      .describe("The device's name (the host name), shown when approving"),
    device_name: z.string().max(1000).optional().describe('The same as deviceName'),
    workspace: z
      .string()
      .max(200)
      .optional()
      .describe('A workspace name to suggest on the approval page; the approver chooses'),
  })
  .loose();
export type DeviceAuthorizeBody = z.infer<typeof DeviceAuthorizeBody>;

export const DeviceAuthorizeResponse = z.object({
  device_code: z.string().describe('Secret code the CLI polls with'),
  user_code: z.string().describe('Short code the person confirms in the browser'),
  verification_uri: z.string().describe('Page where the person enters user_code'),
  verification_uri_complete: z.string().describe('That page with user_code filled in'),
  expires_in: z.number().int().describe('Seconds until the codes expire'),
  interval: z.number().int().describe('Least seconds between two polls'),
});
export type DeviceAuthorizeResponse = z.infer<typeof DeviceAuthorizeResponse>;

export const DeviceTokenBody = z
  .object({ device_code: z.string().max(500).describe('The device_code of the authorize answer') })
  .loose();
export type DeviceTokenBody = z.infer<typeof DeviceTokenBody>;

/** Upstream reads token, token_id, expires_at and user {id, email, name}; the rest is this platform's. */
export const DeviceTokenResponse = z.object({
  token: z.string().describe('The new API token (osm_…), shown only here'),
  token_type: z.literal('Bearer').describe('Always Bearer'),
  token_id: Uuid.describe("The token's id"),
  token_name: z.string().describe("The token's name"),
  expires_at: Timestamp.nullable().describe('When the token expires (at most 90 days from now); null: never'),
  user: z
    .object({
      id: Uuid.describe("The user's id"),
      email: z.string().describe("The user's e-mail"),
      name: z.string().nullable().describe("The user's display name; null when not set"),
    })
    .describe('The user who approved'),
  workspace: z
    .object({
      id: Uuid.describe('Its id'),
      name: z.string().describe('Its name'),
      role: MemberRole.describe("The user's role in it"),
    })
    .describe('The workspace the token is for'),
});
export type DeviceTokenResponse = z.infer<typeof DeviceTokenResponse>;

/** RFC 8628 §3.5 error codes (and OAuth's `invalid_grant`, `invalid_request`), as upstream reads them. */
export const DeviceTokenErrorCode = z.enum([
  'authorization_pending',
  'slow_down',
  'expired_token',
  'access_denied',
  'invalid_grant',
  'invalid_request',
]);
export type DeviceTokenErrorCode = z.infer<typeof DeviceTokenErrorCode>;

export const DeviceErrorBody = z.object({
  error: z
    .string()
    .describe(
      'authorization_pending, slow_down, expired_token, access_denied, invalid_grant or invalid_request (RFC 8628)',
    ),
  error_description: z.string().optional().describe('The error for people'),
});
export type DeviceErrorBody = z.infer<typeof DeviceErrorBody>;
