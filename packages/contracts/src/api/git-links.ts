// Git repositories linked to a workspace: inside a clone whose `origin` has a linked identity,
// the CLI uses that workspace's stored login, as the upstream Osmosis CLI 0.3 picks a workspace
// with its `X-Osmosis-Git` header (docs/cli-compat.md, "Workspace selection").
import { z } from 'zod';
import { UserSummary } from './auth.ts';
import { dataOf, listOf, Timestamp } from './common.ts';

/** The request header that names the repository the CLI runs in (as upstream). */
export const GIT_IDENTITY_HEADER = 'x-osmosis-git';

/**
 * A repository identity as the CLI derives it from `origin`: `owner/repo` for github.com (as
 * upstream), `host/path…` for other hosts; lower case, no credentials, no `..`.
 */
export const GitIdentity = z
  .string()
  .min(3)
  .max(300)
  .regex(
    /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9._-]+)+$/,
    'a repository identity: owner/repo for github.com, host/path for other hosts (lower case)',
  )
  .refine(
    (v) => !v.split('/').some((s) => s === '.' || s === '..'),
    'a repository identity has no . or .. segment',
  );
export type GitIdentity = z.infer<typeof GitIdentity>;

export const GitLink = z.object({
  identity: z
    .string()
    .describe("The repository's identity: owner/repo for github.com, host/path for other hosts"),
  remote_url: z
    .string()
    .nullable()
    .describe("origin's URL as the linking CLI saw it, without credentials (display only)"),
  added_by: UserSummary.nullable().describe('Who linked it; null when that account is gone'),
  created_at: Timestamp.describe('When it was linked'),
});
export type GitLink = z.infer<typeof GitLink>;

export const ListGitLinksResponse = listOf(GitLink);
export type ListGitLinksResponse = z.infer<typeof ListGitLinksResponse>;

/** PUT /v1/workspace/git-links (admins and owners). */
export const SetGitLinkBody = z.strictObject({
  identity: GitIdentity.describe(
    "The repository's identity: owner/repo for github.com, host/path for other hosts (lower case)",
  ),
  remote_url: z.string().max(2048).optional().describe("origin's URL, for display; credentials are removed"),
});
export type SetGitLinkBody = z.infer<typeof SetGitLinkBody>;

export const SetGitLinkResponse = dataOf(
  GitLink.extend({ created: z.boolean().describe('True when newly linked, false when it already was') }),
);
export type SetGitLinkResponse = z.infer<typeof SetGitLinkResponse>;

/** DELETE /v1/workspace/git-links?identity= (admins and owners). */
export const GitLinkQuery = z.object({ identity: GitIdentity.describe('The repository identity to unlink') });
export type GitLinkQuery = z.infer<typeof GitLinkQuery>;

export const DeleteGitLinkResponse = dataOf(
  z.object({
    identity: z.string().describe('The identity unlinked'),
    deleted: z.literal(true).describe('Always true'),
  }),
);
export type DeleteGitLinkResponse = z.infer<typeof DeleteGitLinkResponse>;

/**
 * GET /v1/git-links/resolve with the `X-Osmosis-Git` header: the workspaces of the caller that
 * link the identity — those where the token's user is a member (a confined token: its own
 * workspace only). Other workspaces' links are never revealed.
 */
export const GitLinkResolveResponse = dataOf(
  z.object({
    identity: z.string().describe('The identity from the X-Osmosis-Git header'),
    workspaces: z
      .array(
        z.object({
          id: z.string().describe("The workspace's id"),
          name: z.string().describe("The workspace's name"),
        }),
      )
      .describe("The caller's workspaces that link it (empty when none)"),
  }),
);
export type GitLinkResolveResponse = z.infer<typeof GitLinkResolveResponse>;
