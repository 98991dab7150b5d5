import type { Command, Option } from 'commander';

interface Node {
  names: string[];
  options: string[];
  children: Map<string, Node>;
}

const flags = (options: readonly Option[]) => options.flatMap((o) => [o.long, o.short].filter((f): f is string => !!f));

function tree(command: Command): Node {
  const children = new Map(command.commands.map((c) => [c.name(), tree(c)] as const));
  return { names: [...children.keys()], options: [...flags(command.options), '--help'], children };
}

/** Bash: complete the command, its subcommand, then the subcommand's options (globals included). */
function bash(root: Node, globals: string[]): string {
  const cases = [...root.children].map(
    ([name, node]) => `    ${name}) words="${[...node.names, ...node.options].join(' ')}";;`,
  );
  const deep = [...root.children].flatMap(([name, node]) =>
    [...node.children].map(([sub, leaf]) => `    "${name} ${sub}") words="${leaf.options.join(' ')}";;`),
  );
  return `# spoor completion for bash: source <(spoor completion bash)
_spoor() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" words=""
  if [ "$COMP_CWORD" -eq 1 ]; then
    words="${[...root.names, ...globals].join(' ')}"
  elif [ "$COMP_CWORD" -eq 2 ]; then
    case "\${COMP_WORDS[1]}" in
${cases.join('\n')}
    esac
  else
    case "\${COMP_WORDS[1]} \${COMP_WORDS[2]}" in
${deep.join('\n')}
    esac
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _spoor spoor
`;
}

/** Zsh: the same words through compadd (needs compinit, as any completion does). */
function zsh(root: Node, globals: string[]): string {
  const cases = [...root.children].map(
    ([name, node]) => `        ${name}) candidates=(${[...node.names, ...node.options].join(' ')});;`,
  );
  const deep = [...root.children].flatMap(([name, node]) =>
    [...node.children].map(([sub, leaf]) => `        "${name} ${sub}") candidates=(${leaf.options.join(' ')});;`),
  );
  return `#compdef spoor
# spoor completion for zsh: source <(spoor completion zsh), after compinit
_spoor() {
  local -a candidates
  case $CURRENT in
    2) candidates=(${[...root.names, ...globals].join(' ')});;
    3)
      case $words[2] in
${cases.join('\n')}
      esac;;
    *)
      case "$words[2] $words[3]" in
${deep.join('\n')}
      esac;;
  esac
  compadd -- $candidates
}
compdef _spoor spoor
`;
}

export function registerCompletionCommand(program: Command): void {
  program
    .command('completion')
    .description('print a shell completion script: source <(spoor completion bash), or zsh')
    .argument('<shell>', 'bash or zsh')
    .action((shell: string) => {
      const root = tree(program);
      const globals = flags(program.options);
      if (shell !== 'bash' && shell !== 'zsh') program.error('error: <shell> is bash or zsh', { exitCode: 2 });
      program.configureOutput().writeOut!(shell === 'bash' ? bash(root, globals) : zsh(root, globals));
    });
}
