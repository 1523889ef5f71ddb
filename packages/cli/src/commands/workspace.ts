// `osmosis workspace list | create`: the workspaces you are a member of; `workspace endpoint-hosts`:
// where the workspace's secret records may be sent (workspace-endpoint-hosts.ts); `workspace link |
// unlink | links`: git repositories whose clones use the workspace (workspace-git-links.ts);
// `workspace limits`: attempts in flight at once across its runs (workspace-limits.ts).
import type { Command } from 'commander';
import { authenticatedClient, clientWithToken } from '../api.ts';
import { contextOf } from '../context.ts';
import { credentialsPath, saveLogin } from '../credentials.ts';
import { addListOptions } from '../options.ts';
import { printAction, printList, step } from '../output.ts';
import { registerEndpointHosts } from './workspace-endpoint-hosts.ts';
import { registerGitLinks } from './workspace-git-links.ts';
import { registerLimits } from './workspace-limits.ts';

export function register(program: Command): void {
  const workspace = program
    .command('workspace')
    .description(
      'Workspaces you are a member of: list, create; endpoint-hosts; git links (link, unlink, links); limits',
    );
  registerEndpointHosts(workspace);
  registerGitLinks(workspace);
  registerLimits(workspace);

  addListOptions(workspace.command('list').description('Your workspaces and your role in each'), {
    allHelp: 'every workspace',
  }).action(async (options: { limit: number; all?: boolean }, cmd: Command) => {
    const ctx = contextOf(cmd);
    const client = authenticatedClient(ctx);
    const { ListWorkspacesResponse } = await import('@osmosis/contracts');
    const page = await client.list('/v1/workspaces', ListWorkspacesResponse, {
      limit: options.limit,
      all: options.all,
    });
    printList(ctx, page, {
      columns: [
        { header: 'Name', value: (w) => w.name, noShrink: true },
        { header: 'Role', value: (w) => w.role },
        { header: 'Id', value: (w) => w.id },
      ],
      empty: 'No workspaces.',
      moreHint: 'Use --limit N or --all to see more.',
    });
  });

  workspace
    .command('create')
    .argument('<name>', 'letters, digits, ".", "_" and "-"')
    .description(
      'Create a workspace you own (members and up; not with a read-only token) and log in to it: its\n' +
        'owner token is bounded by the token you use and stored as the login for it',
    )
    .option('--no-login', 'do not store the new token as a login (print it instead)')
    .action(async (name: string, options: { login: boolean }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const client = authenticatedClient(ctx);
      const { CreateWorkspaceResponse, MeResponse } = await import('@osmosis/contracts');
      const created = (await client.post('/v1/workspaces', CreateWorkspaceResponse, { body: { name } })).data;
      if (options.login) {
        const me = (await clientWithToken(ctx, created.token.token).get('/v1/me', MeResponse)).data;
        saveLogin(ctx.configDir, ctx.platformUrl, {
          token: created.token.token,
          workspace_id: created.workspace.id,
          workspace_name: created.workspace.name,
          user_email: me.user.email,
          token_id: created.token.id,
          token_name: created.token.name,
          saved_at: new Date().toISOString(),
        });
      }
      printAction(ctx, {
        status: 'success',
        operation: 'workspace.create',
        resource: { type: 'workspace', id: created.workspace.id, name: created.workspace.name },
        message: options.login
          ? `Created workspace ${created.workspace.name}; you are its owner, logged in to it (saved to ${credentialsPath(ctx.configDir)}).`
          : `Created workspace ${created.workspace.name}; you are its owner. Its token (shown once): ${created.token.token}`,
        next_steps_structured: [step('Invite a member', 'osmosis member add EMAIL --role member')],
      });
    });
}
