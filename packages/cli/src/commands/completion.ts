// `osmosis completion bash|zsh|fish`: prints a shell completion script for every command,
// subcommand and option (the whole command tree is loaded once, here only). Install:
//   bash: osmosis completion bash > ~/.local/share/bash-completion/completions/osmosis
//   zsh:  osmosis completion zsh > "${fpath[1]}/_osmosis"   (or: source <(osmosis completion zsh))
//   fish: osmosis completion fish > ~/.config/fish/completions/osmosis.fish
import type { Command } from 'commander';
import { contextOf } from '../context.ts';
import { CliError } from '../errors.ts';
import { buildProgram } from '../program.ts';
import { featureGroups } from './groups.ts';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** Every command path ('' for the root) with its subcommands and options. */
export interface CommandTree {
  paths: Map<string, { subcommands: string[]; options: string[] }>;
}

function walk(command: Command, prefix: string, tree: CommandTree): void {
  const subcommands = command.commands.map((c) => c.name()).filter((n) => n !== 'help');
  const options = command.options.flatMap((o) => [o.short, o.long].filter((x): x is string => !!x));
  tree.paths.set(prefix, { subcommands, options: [...new Set([...options, '--help'])] });
  for (const sub of command.commands) walk(sub, prefix ? `${prefix} ${sub.name()}` : sub.name(), tree);
}

/** Loads every command group into `program` and describes the result. */
export async function commandTree(program: Command): Promise<CommandTree> {
  for (const group of featureGroups) (await group.load()).register(program);
  register(program);
  const tree: CommandTree = { paths: new Map() };
  walk(program, '', tree);
  return tree;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
/** A command path as the scripts key it: `osmosis`, `osmosis benchmark runs` (bash keys cannot be empty). */
const key = (path: string) => (path ? `osmosis ${path}` : 'osmosis');

function bashScript(tree: CommandTree): string {
  const subs = [...tree.paths].map(([p, v]) => `  [${quote(key(p))}]=${quote(v.subcommands.join(' '))}`);
  const opts = [...tree.paths].map(([p, v]) => `  [${quote(key(p))}]=${quote(v.options.join(' '))}`);
  return `# osmosis completion for bash (osmosis completion bash)
_osmosis() {
  local -A subs=(
${subs.join('\n')}
  )
  local -A opts=(
${opts.join('\n')}
  )
  local cur="\${COMP_WORDS[COMP_CWORD]}" path=osmosis next w i
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ $w == -* ]] && continue
    next="$path $w"
    [[ -n \${subs[$next]+set} ]] && path="$next"
  done
  if [[ $cur == -* ]]; then
    local o="\${opts[$path]}"
    [[ $path != osmosis ]] && o+=" \${opts[osmosis]}"
    COMPREPLY=($(compgen -W "$o" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "\${subs[$path]}" -- "$cur"))
  fi
}
complete -o default -F _osmosis osmosis
`;
}

function zshScript(tree: CommandTree): string {
  return `#compdef osmosis
# osmosis completion for zsh (osmosis completion zsh): the bash completion through bashcompinit
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bashScript(tree)}`;
}

function fishScript(tree: CommandTree): string {
  const known = [...tree.paths.keys()].map(key);
  const lines = [
    '# osmosis completion for fish (osmosis completion fish)',
    'function __osmosis_path',
    '    set -l known ' + known.map(quote).join(' '),
    '    set -l path osmosis',
    '    for w in (commandline -opc)[2..-1]',
    '        string match -q -- "-*" $w; and continue',
    '        set -l next "$path $w"',
    '        contains -- $next $known; and set path $next',
    '    end',
    '    echo $path',
    'end',
    'complete -c osmosis -f',
  ];
  for (const [path, v] of tree.paths) {
    const cond = `-n ${quote(`test (__osmosis_path) = ${quote(key(path))}`)}`;
    if (v.subcommands.length) lines.push(`complete -c osmosis ${cond} -a ${quote(v.subcommands.join(' '))}`);
    for (const option of v.options) {
      const flag = option.startsWith('--') ? `-l ${option.slice(2)}` : `-s ${option.slice(1)}`;
      lines.push(`complete -c osmosis ${cond} ${flag}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export function completionScript(shell: Shell, tree: CommandTree): string {
  return shell === 'bash' ? bashScript(tree) : shell === 'zsh' ? zshScript(tree) : fishScript(tree);
}

export function register(program: Command): void {
  program
    .command('completion')
    .argument('<shell>', SHELLS.join(' | '))
    .description('Print a shell completion script (bash, zsh, fish); see `osmosis completion --help`')
    .addHelpText(
      'after',
      '\nInstall:\n' +
        '  bash: osmosis completion bash > ~/.local/share/bash-completion/completions/osmosis\n' +
        '  zsh:  source <(osmosis completion zsh)\n' +
        '  fish: osmosis completion fish > ~/.config/fish/completions/osmosis.fish',
    )
    .action(async (shell: string, _options: unknown, cmd: Command) => {
      if (!(SHELLS as readonly string[]).includes(shell))
        throw new CliError('USAGE_ERROR', `no completion for the shell "${shell.slice(0, 40)}"`, {
          hint: `use one of ${SHELLS.join(', ')}`,
        });
      const ctx = contextOf(cmd);
      // a program of its own with every group loaded (the running one loads only this group)
      const tree = await commandTree(buildProgram(ctx.io, () => undefined));
      ctx.io.stdout.write(completionScript(shell as Shell, tree));
    });
}
