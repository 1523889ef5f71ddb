// The command groups of `osmosis`: every feature group (groups.ts) and `completion`, which loads
// them all to describe the command tree. Groups load lazily: a run imports only the module of
// the group it executes. To add a group, append it in groups.ts (see packages/cli/README.md).
import { type CommandGroup, featureGroups } from './groups.ts';

export type { CommandGroup, CommandModule } from './groups.ts';

export const commandGroups: CommandGroup[] = [
  ...featureGroups,
  {
    name: 'completion',
    summary: 'Print a shell completion script: bash, zsh or fish',
    load: () => import('./completion.ts'),
  },
];
