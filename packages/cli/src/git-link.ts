// Picking the workspace a git repository is linked to, as the upstream Osmosis CLI 0.3 does
// with its `X-Osmosis-Git` header. A token of this platform belongs to one workspace, so the
// platform cannot switch workspaces by header: the CLI asks which of the user's workspaces link
// the repository's `origin` (GET /v1/git-links/resolve with the header) and uses the stored
// login of that workspace. Only the default choice is replaced: OSMOSIS_TOKEN and --workspace
// are explicit and win.
import type { Context } from './context.ts';
import { type Credential, findLoginByWorkspace } from './credentials.ts';
import { CliError } from './errors.ts';
import type { ApiClient } from './http.ts';

export const GIT_HEADER = 'x-osmosis-git';

interface Resolved {
  identity: string;
  workspaces: { id: string; name: string }[];
}

/**
 * The linked workspaces of `identity` the credential's user is a member of (those its token may
 * reach). An older platform without the route, or any failure here, leaves the choice alone:
 * the command's own request reports what is wrong.
 */
async function resolveLink(client: ApiClient, identity: string): Promise<Resolved | null> {
  const { GitLinkResolveResponse } = await import('@osmosis/contracts');
  try {
    return (
      await client.get('/v1/git-links/resolve', GitLinkResolveResponse, {
        headers: { [GIT_HEADER]: identity },
      })
    ).data;
  } catch {
    return null;
  }
}

/**
 * With a stored default login and a repository whose `origin` is linked, switch `credential` to
 * the login of the linked workspace. Throws WORKSPACE_REQUIRED when the repository is linked
 * to a workspace of yours without a stored login, or to several.
 */
export async function pickLinkedWorkspace(
  ctx: Context,
  credential: Credential,
  probe: ApiClient,
): Promise<Credential> {
  const identity = ctx.workspaceDirectory()?.git?.identity;
  if (!identity || credential.source !== 'stored' || credential.selected_by !== 'default') return credential;
  const resolved = await resolveLink(probe, identity);
  if (!resolved || resolved.workspaces.length === 0) return credential;
  const current = credential.login?.workspace_id;
  if (resolved.workspaces.some((w) => w.id === current)) return credential;
  const stored = resolved.workspaces
    .map((w) => ({ workspace: w, login: findLoginByWorkspace(ctx.configDir, ctx.platformUrl, w.id) }))
    .filter((x) => x.login !== undefined);
  if (stored.length === 1) {
    const login = stored[0]!.login!;
    return { token: login.token, source: 'stored', login, selected_by: 'git' };
  }
  const names = resolved.workspaces.map((w) => w.name);
  if (resolved.workspaces.length === 1) {
    const name = names[0]!;
    throw new CliError(
      'WORKSPACE_REQUIRED',
      `this repository (origin ${identity}) is linked to workspace ${name}, and there is no stored login for it on ${ctx.platformUrl}`,
      {
        details: { git_identity: identity, linked_workspaces: names },
        hint: `run \`osmosis auth switch ${name}\` once (it stores a token of yours for it), or choose a workspace with --workspace NAME`,
      },
    );
  }
  throw new CliError(
    'WORKSPACE_REQUIRED',
    `this repository (origin ${identity}) is linked to several of your workspaces (${names.join(', ')})`,
    {
      details: { git_identity: identity, linked_workspaces: names },
      hint: 'choose one with --workspace NAME',
    },
  );
}
