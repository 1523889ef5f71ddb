// The command groups of `osmosis` (the list without `completion`; index.ts adds it). Each group is a module whose `register(program)` adds one
// top-level command (`program.command(name)`) with its subcommands. Groups load lazily: a run
// imports only the module of the group it executes, so start-up stays fast. To add a group,
// append an entry here (see packages/cli/README.md).
import type { Command } from 'commander';

export interface CommandModule {
  register(program: Command): void;
}

export interface CommandGroup {
  /** Top-level command name; `register` must add exactly this command. */
  name: string;
  /** One line for `osmosis --help`. */
  summary: string;
  load(): Promise<CommandModule>;
}

/** every group but `completion`, which loads these to describe the whole tree */
export const featureGroups: CommandGroup[] = [
  {
    name: 'auth',
    summary: 'Log in to a platform, switch workspace, log out, show who you are',
    load: () => import('./auth.ts'),
  },
  {
    name: 'workspace',
    summary:
      'Workspaces you are a member of: list, create; where their secrets may be sent; linked git repositories',
    load: () => import('./workspace.ts'),
  },
  {
    name: 'member',
    summary: 'Members of the workspace: list, invite (add), accept, invitations, uninvite, role, remove',
    load: () => import('./member.ts'),
  },
  {
    name: 'user',
    summary: 'User accounts of the platform (its operators): create',
    load: () => import('./user.ts'),
  },
  {
    name: 'token',
    summary: 'Your API tokens: list, create (bounded by the token you use), revoke',
    load: () => import('./token.ts'),
  },
  {
    name: 'secret',
    summary: 'Manage secret records (values are write-only)',
    load: () => import('./secret.ts'),
  },
  {
    name: 'init',
    summary: 'Write starter run configs into configs/benchmark/',
    load: () => import('./init.ts'),
  },
  {
    name: 'benchmark',
    summary: 'Add and inspect benchmarks, submit and follow runs',
    load: () => import('./benchmark-group.ts'),
  },
  {
    name: 'webhook',
    summary: 'Run notifications: add, list, delete webhooks, see their deliveries (admins)',
    load: () => import('./webhook.ts'),
  },
  {
    name: 'workers',
    summary: 'Worker processes (admins): state, engine, slots, resources advertised and reserved',
    load: () => import('./workers.ts'),
  },
];
