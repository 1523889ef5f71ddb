// `osmosis member list | add | role | remove`: members of the workspace (admins and owners
// change them). Adding an existing user gives you no token of theirs: they start using the
// workspace with `osmosis auth switch NAME`. A user created by `add` gets a token confined to
// this workspace, printed once for you to hand over.
import { type Command, Option } from 'commander';
import { authenticatedClient } from '../api.ts';
import { contextOf } from '../context.ts';
import { CliError } from '../errors.ts';
import type { ApiClient } from '../http.ts';
import { addListOptions, addYesOption } from '../options.ts';
import { note, printAction, printList, printObject } from '../output.ts';
import { confirm } from '../prompt.ts';
import { renderKeyValue } from '../table.ts';

const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;

/** A member's user id from an id or an e-mail (looked up in the member list). */
async function userIdOf(client: ApiClient, ref: string): Promise<{ id: string; email: string }> {
  const { ListMembersResponse } = await import('@osmosis/contracts');
  const members = await client.list('/v1/members', ListMembersResponse, { all: true });
  const found = members.items.find((m) => m.user_id === ref || m.email === ref.trim().toLowerCase());
  if (!found) {
    throw new CliError('NOT_FOUND', `no member ${ref} in this workspace`, {
      hint: 'see the members with `osmosis member list`',
    });
  }
  return { id: found.user_id, email: found.email };
}

export function register(program: Command): void {
  const member = program.command('member').description('Members of the workspace: list, add, role, remove');

  addListOptions(member.command('list').description('Members and their roles'), {
    allHelp: 'every member',
  }).action(async (options: { limit: number; all?: boolean }, cmd: Command) => {
    const ctx = contextOf(cmd);
    const client = authenticatedClient(ctx);
    const { ListMembersResponse } = await import('@osmosis/contracts');
    const page = await client.list('/v1/members', ListMembersResponse, {
      limit: options.limit,
      all: options.all,
    });
    printList(ctx, page, {
      columns: [
        { header: 'Email', value: (m) => m.email, noShrink: true },
        { header: 'Name', value: (m) => m.display_name ?? '' },
        { header: 'Role', value: (m) => m.role },
        { header: 'User id', value: (m) => m.user_id },
      ],
      empty: 'No members.',
    });
  });

  member
    .command('add')
    .argument('<email>', "the user's e-mail address")
    .description(
      'Add a user with a role (admins and owners). An existing user gets the membership only: they\n' +
        'make their own token for this workspace (`osmosis auth switch WORKSPACE`). A new user is\n' +
        'created with a token that works only in this workspace, printed once for you to hand over.',
    )
    .addOption(new Option('--role <role>', 'their role').choices(ROLES).default('member'))
    .option('--display-name <name>', "a new user's display name")
    .action(async (email: string, options: { role: string; displayName?: string }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const client = authenticatedClient(ctx);
      const { AddMemberResponse } = await import('@osmosis/contracts');
      const added = (
        await client.post('/v1/members', AddMemberResponse, {
          body: {
            email,
            role: options.role,
            ...(options.displayName ? { display_name: options.displayName } : {}),
          },
        })
      ).data;
      const workspace = client.credential.login?.workspace_name ?? 'WORKSPACE';
      printObject(ctx, added, (a) =>
        renderKeyValue(
          [
            ['Member', a.member.email],
            ['Role', a.member.role],
            ['User', a.user_created ? 'created' : 'existing'],
            ...(a.token
              ? ([['Token', a.token.token]] as [string, string][])
              : ([['Token', `none: they run \`osmosis auth switch ${workspace}\``]] as [string, string][])),
          ],
          { color: ctx.color },
        ),
      );
      if (added.token) {
        note(
          ctx,
          'Hand this token to them once, privately; it works only in this workspace. They can make tokens of their own with it (`osmosis token create`).',
        );
      }
    });

  member
    .command('role')
    .argument('<member>', 'e-mail or user id')
    .argument('<role>', ROLES.join(' | '))
    .description("Change a member's role (granting or revoking owner: owners only)")
    .action(async (ref: string, role: string, _options: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      if (!(ROLES as readonly string[]).includes(role)) {
        throw new CliError('USAGE_ERROR', `unknown role ${JSON.stringify(role)}`, {
          hint: `one of ${ROLES.join(', ')}`,
        });
      }
      const client = authenticatedClient(ctx);
      const { MemberResponse } = await import('@osmosis/contracts');
      const user = await userIdOf(client, ref);
      const updated = (await client.patch(`/v1/members/${user.id}`, MemberResponse, { body: { role } })).data;
      printAction(ctx, {
        status: 'success',
        operation: 'member.role',
        resource: { type: 'member', id: updated.user_id, name: updated.email },
        message: `${updated.email} is now ${updated.role}.`,
      });
    });

  addYesOption(
    member
      .command('remove')
      .argument('<member>', 'e-mail or user id')
      .description('Remove a member (their tokens for this workspace are revoked)'),
  ).action(async (ref: string, options: { yes?: boolean }, cmd: Command) => {
    const ctx = contextOf(cmd);
    const client = authenticatedClient(ctx);
    const { MemberResponse } = await import('@osmosis/contracts');
    const user = await userIdOf(client, ref);
    const ok = await confirm(ctx, {
      message: `Remove ${user.email} from the workspace and revoke their tokens for it?`,
      yes: options.yes === true,
    });
    if (!ok) {
      printAction(ctx, { status: 'cancelled', operation: 'member.remove', message: 'Nothing was changed.' });
      return;
    }
    const removed = (await client.delete(`/v1/members/${user.id}`, MemberResponse)).data;
    printAction(ctx, {
      status: 'success',
      operation: 'member.remove',
      resource: { type: 'member', id: removed.user_id, name: removed.email },
      message: `Removed ${removed.email}; their tokens for this workspace are revoked.`,
    });
  });
}
