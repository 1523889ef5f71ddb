// `osmosis user create`: user accounts, made by the platform's operators (POST /v1/users). A
// workspace admin only invites (`osmosis member add`), so no admin learns whether an e-mail has an
// account. The new user gets a workspace of their own and a token for it, printed once for the
// operator to hand over; the user then makes a token of their own and revokes that one.
import type { Command } from 'commander';
import { authenticatedClient } from '../api.ts';
import { contextOf } from '../context.ts';
import { CliError } from '../errors.ts';
import { note, printObject } from '../output.ts';
import { renderKeyValue } from '../table.ts';

export function register(program: Command): void {
  const user = program.command('user').description('User accounts of the platform (its operators): create');

  user
    .command('create')
    .argument('<email>', "the new user's e-mail address")
    .description(
      "Make a user account (the platform's operators): it gets a workspace of its own, which the user\n" +
        'owns, and a token for it, printed once for you to hand over privately. To bring the user into\n' +
        'another workspace, an admin of it invites them (`osmosis member add EMAIL`).',
    )
    .option('--display-name <name>', "the user's display name")
    .option(
      '--workspace-name <name>',
      "name of the user's own workspace (default: from the e-mail; --workspace picks your login)",
    )
    .action(
      async (email: string, options: { displayName?: string; workspaceName?: string }, cmd: Command) => {
        const ctx = contextOf(cmd);
        const client = authenticatedClient(ctx);
        const { CreateUserResponse } = await import('@osmosis/contracts');
        const created = (
          await client
            .post('/v1/users', CreateUserResponse, {
              body: {
                email,
                ...(options.displayName ? { display_name: options.displayName } : {}),
                ...(options.workspaceName ? { workspace: options.workspaceName } : {}),
              },
            })
            .catch((err: unknown) => {
              if (err instanceof CliError && err.code === 'FORBIDDEN' && !/read only/.test(err.message)) {
                throw new CliError(
                  'FORBIDDEN',
                  'only operators of the platform make user accounts, and you are not one (your role in the workspace does not matter here)',
                  {
                    details: err.details,
                    status: err.status,
                    hint: 'ask whoever runs the platform to run `osmosis user create EMAIL`; to bring an existing user into your workspace, invite them: `osmosis member add EMAIL`',
                  },
                );
              }
              if (err instanceof CliError && err.code === 'FORBIDDEN') {
                throw new CliError(err.code, err.message, {
                  details: err.details,
                  status: err.status,
                  hint: 'use a token without a role bound (`osmosis token list`)',
                });
              }
              throw err;
            })
        ).data;
        printObject(
          ctx,
          created,
          (c) =>
            renderKeyValue(
              [
                ['User', c.user.email],
                ['Name', c.user.display_name ?? ''],
                ['User id', c.user.id],
                ['Workspace', c.workspace.name],
                ['Token', c.token.token],
              ],
              { color: ctx.color },
            ),
          (c) => [
            `User: ${c.user.email}`,
            `Name: ${c.user.display_name ?? ''}`,
            `User id: ${c.user.id}`,
            `Workspace: ${c.workspace.name}`,
            `Token: ${c.token.token}`,
          ],
        );
        note(
          ctx,
          `The token is shown only now: hand it to ${created.user.email} privately. They log in with it (\`osmosis auth login --token\`), make a token of their own (\`osmosis token create NAME\`), log in with that one and revoke this one (\`osmosis token revoke ${created.token.id}\`).`,
        );
      },
    );
}
