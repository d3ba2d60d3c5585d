// `floe completion bash|zsh|fish`: a completion script for the shell, made
// from the command tree itself, so it never lags a new command or option.
// One table maps each command path ("", "catalogs", "catalogs create") to
// the words that may follow it (subcommands, then its options and the
// global ones); each shell's script walks the words typed so far down the
// tree and offers that path's words.
import { Argument, type Command } from 'commander';
import { act, examples } from '../command.js';
import type { Io } from '../io.js';

export type Shell = 'bash' | 'zsh' | 'fish';

/** Every command path with the words that may follow it. Pure. */
export function completionTable(root: Command): Array<[string, string[]]> {
  const globals = root.options.map((o) => o.long).filter((x): x is string => Boolean(x));
  const table: Array<[string, string[]]> = [];
  const walk = (cmd: Command, path: string[]) => {
    const subs = cmd.commands.filter((c) => !(c as Command & { _hidden?: boolean })._hidden).flatMap((c) => [c.name(), ...c.aliases()]);
    const own = cmd === root ? [] : cmd.options.map((o) => o.long).filter((x): x is string => Boolean(x));
    table.push([path.join(' '), [...subs, ...own, ...globals, '--help']]);
    for (const sub of cmd.commands) walk(sub, [...path, sub.name()]);
  };
  walk(root, []);
  return table;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function completionScript(shell: Shell, root: Command): string {
  const table = completionTable(root);
  if (shell === 'bash') {
    const cases = table.map(([p, words]) => `    ${quote(p)}) echo ${quote(words.join(' '))} ;;`).join('\n');
    return `# floe completion for bash: add to ~/.bashrc:  source <(floe completion bash)
_floe_words() {
  case "$1" in
${cases}
  esac
}
_floe() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" cmdpath="" next w i
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ $w == -* ]] && continue
    next="\${cmdpath:+$cmdpath }$w"
    [[ " $(_floe_words "$cmdpath") " == *" $w "* ]] && cmdpath="$next"
  done
  COMPREPLY=($(compgen -W "$(_floe_words "$cmdpath")" -- "$cur"))
}
complete -F _floe floe
`;
  }
  if (shell === 'zsh') {
    const cases = table.map(([p, words]) => `    ${quote(p)}) print -r -- ${quote(words.join(' '))} ;;`).join('\n');
    return `#compdef floe
# floe completion for zsh: add to ~/.zshrc:  source <(floe completion zsh)
_floe_words() {
  case "$1" in
${cases}
  esac
}
_floe() {
  local cmdpath="" w i
  local -a choices
  for ((i = 2; i < CURRENT; i++)); do
    w=\${words[i]}
    [[ $w == -* ]] && continue
    choices=(\${(s: :)$(_floe_words "$cmdpath")})
    (( \${choices[(Ie)$w]} )) && cmdpath="\${cmdpath:+$cmdpath }$w"
  done
  choices=(\${(s: :)$(_floe_words "$cmdpath")})
  compadd -- $choices
}
compdef _floe floe
`;
  }
  const cases = table.map(([p, words]) => `    case ${quote(p)}\n      echo ${quote(words.join(' '))}`).join('\n');
  return `# floe completion for fish: floe completion fish > ~/.config/fish/completions/floe.fish
function __floe_words
  switch "$argv[1]"
${cases}
  end
end
function __floe_path
  set -l toks (commandline -opc)
  set -e toks[1]
  set -l p ""
  for t in $toks
    if not string match -q -- '-*' $t
      if contains -- $t (string split ' ' (__floe_words "$p"))
        if test -z "$p"
          set p $t
        else
          set p "$p $t"
        end
      end
    end
  end
  echo $p
end
complete -c floe -f -a '(string split " " (__floe_words (__floe_path)))'
`;
}

export function registerCompletion(program: Command, io: Io): void {
  examples(program.command('completion')
    .description('print a shell completion script')
    .addArgument(new Argument('<shell>', 'the shell').choices(['bash', 'zsh', 'fish']))
    .action(act(io, async (c, shell: Shell) => {
      c.out.line(completionScript(shell, program));
    })), ['source <(floe completion bash)', 'floe completion zsh > "${fpath[1]}/_floe"', 'floe completion fish > ~/.config/fish/completions/floe.fish']);
}
