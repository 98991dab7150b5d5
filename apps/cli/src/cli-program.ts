import { Command, CommanderError, Option } from 'commander';
import { CliError } from './cli-errors.js';
import { buildVersion } from '@spoor/runtime/build-version';
import { readEnvironment } from './cli-environment.js';
import { CliSession, type CliStreams, type GlobalOptions } from './cli-session.js';
import { registerApiKeyCommands } from './commands/apikey-commands.js';
import { registerAuditCommand } from './commands/audit-command.js';
import { registerAccountCommands } from './commands/account-commands.js';
import { registerAuthCommands } from './commands/auth-commands.js';
import { registerCompletionCommand } from './commands/completion-command.js';
import { registerDataCommands } from './commands/data-commands.js';
import { registerEventCommands } from './commands/event-commands.js';
import { registerFunnelCommands } from './commands/funnel-commands.js';
import { registerLiveCommand } from './commands/live-command.js';
import { registerMemberCommands } from './commands/member-commands.js';
import { registerOutboundCommands } from './commands/outbound-commands.js';
import { registerProjectCommands } from './commands/project-commands.js';
import { registerRetentionCommand } from './commands/retention-command.js';
import { registerStatsCommand } from './commands/stats-command.js';
import { registerRuleCommands } from './commands/rule-commands.js';
import { registerSessionCommands } from './commands/session-commands.js';
import { registerStatusCommands } from './commands/status-commands.js';
import { registerTagCommands } from './commands/tag-commands.js';
import { registerTriggerCommands } from './commands/trigger-commands.js';

/** The global options added to a command (see `configure`), told apart from its own. */
const GLOBAL_COPIES = new WeakSet<Option>();

/** The global options: the program's (before the subcommand), then those after the command. */
function globalOptions(command: Command): GlobalOptions {
  let root = command;
  while (root.parent) root = root.parent;
  const own = command.opts();
  const after = command.options.filter((o) => GLOBAL_COPIES.has(o) && own[o.attributeName()] !== undefined);
  return {
    ...root.opts(),
    ...Object.fromEntries(after.map((o) => [o.attributeName(), own[o.attributeName()]])),
  } as GlobalOptions;
}

/**
 * Commander answers --help before it looks at the operands, so `spoor export --help` printed the
 * root help and exited 0. An operand that names no subcommand is a usage error (exit 2) with or
 * without --help (issue 20): the check runs just before a command that has subcommands prints
 * its help because --help or -h was given.
 */
function refuseUnknownCommandBeforeHelp(command: Command): void {
  command.addHelpText('before', () => {
    if (!command.args.includes('--help') && !command.args.includes('-h')) return '';
    // args are the operands, then everything from the first option this command does not know
    // (`spoor sessions --limit 5 --help` has no operand: those options are the default list's);
    // `help` is commander's own command, not in `commands`.
    const [name] = command.args;
    if (name === undefined || name.startsWith('-') || name === 'help') return '';
    if (!command.commands.some((c) => c.name() === name || c.aliases().includes(name))) {
      command.error(`error: unknown command '${name}'`, { code: 'commander.unknownCommand' });
    }
    return '';
  });
}

/** The whole command tree; `make` turns a command's options into its session. */
export function buildProgram(make: (command: Command) => CliSession, streams: CliStreams): Command {
  const program = new Command('spoor')
    .description(
      'Spoor from the terminal: projects, sessions, events, funnels, retention, rules, tags, jobs, health and configuration',
    )
    .version(buildVersion(), '-V, --version', 'print the version')
    .option('--url <url>', 'the Spoor server (default: SPOOR_URL, else the server you logged in to)')
    .option('--origin <origin>', "the project's origin (default: what `spoor use` stored)")
    .option('--project <project>', 'the project identifier (default: what `spoor use` stored)')
    .option('--json', 'print JSON (the default when stdout is not a terminal)')
    .option('--utc', 'show times in UTC instead of local time')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: (t) => void streams.stdout.write(t), writeErr: (t) => void streams.stderr.write(t) })
    .exitOverride()
    // The program's options only before the subcommand, so that a subcommand may mean something
    // else by the same name (`channels add --url` is the chat endpoint, not the server).
    .enablePositionalOptions();
  program.addHelpText(
    'after',
    `
Exit codes: 0 done, 1 error (the server's reason on stderr), 2 usage.
Environment: SPOOR_URL (server), SPOOR_PASSWORD (answers the login prompt), SPOOR_TOKEN (a token or
API key instead of the stored login), XDG_CONFIG_HOME (where spoor/auth.json lives).`,
  );
  for (const register of [
    registerAuthCommands,
    registerProjectCommands,
    registerMemberCommands,
    registerAuditCommand,
    registerSessionCommands,
    registerEventCommands,
    registerRuleCommands,
    registerTagCommands,
    registerTriggerCommands,
    registerStatusCommands,
    registerApiKeyCommands,
    registerOutboundCommands,
    registerDataCommands,
    registerAccountCommands,
    registerFunnelCommands,
    registerRetentionCommand,
    registerStatsCommand,
    registerLiveCommand,
  ]) {
    register(program, make);
  }
  registerCompletionCommand(program);
  // Subcommands inherit exitOverride, the output and showHelpAfterError from the program
  // (commander copies them at .command()). Every leaf also takes the global options after its
  // name (`spoor sessions list --json`), unless it has an option of that name itself.
  const globals = program.options.filter((o) => o.long !== '--version');
  const configure = (c: Command) => {
    if (c.commands.length > 0) refuseUnknownCommandBeforeHelp(c);
    if (c.commands.length === 0) {
      for (const g of globals.filter((g) => !c.options.some((o) => o.long === g.long))) {
        const copy = new Option(g.flags, g.description).hideHelp();
        GLOBAL_COPIES.add(copy);
        c.addOption(copy);
      }
    }
    c.commands.forEach(configure);
  };
  program.commands.forEach(configure);
  refuseUnknownCommandBeforeHelp(program);
  return program;
}

/** Why a request never got an answer, in one line. */
function unreachable(err: unknown): string | null {
  if (!(err instanceof TypeError) || !/fetch failed/.test(err.message)) return null;
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return `cannot reach the server: ${cause?.code ?? cause?.message ?? err.message}`;
}

/** Runs one command line; answers the exit code (0 done, 1 error, 2 usage). */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv, streams: CliStreams): Promise<number> {
  const environment = readEnvironment(env);
  const program = buildProgram((command) => new CliSession(globalOptions(command), environment, streams), streams);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    // Help and --version end with 0; every other commander complaint is a usage error.
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    if (err instanceof CliError) {
      streams.stderr.write(
        `${err.message
          .split('\n')
          .map((l) => `error: ${l}`)
          .join('\n')}\n`,
      );
      return err.exitCode;
    }
    const down = unreachable(err);
    streams.stderr.write(`error: ${down ?? (err instanceof Error ? err.message : String(err))}\n`);
    return 1;
  }
}
