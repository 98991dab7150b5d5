import { Command, CommanderError } from 'commander';
import { CliError } from './cli-errors.js';
import { cliVersion } from './cli-version.js';
import { readEnvironment } from './cli-environment.js';
import { CliSession, type CliStreams, type GlobalOptions } from './cli-session.js';
import { registerApiKeyCommands } from './commands/apikey-commands.js';
import { registerAuthCommands } from './commands/auth-commands.js';
import { registerCompletionCommand } from './commands/completion-command.js';
import { registerEventCommands } from './commands/event-commands.js';
import { registerOutboundCommands } from './commands/outbound-commands.js';
import { registerProjectCommands } from './commands/project-commands.js';
import { registerRuleCommands } from './commands/rule-commands.js';
import { registerSessionCommands } from './commands/session-commands.js';
import { registerStatusCommands } from './commands/status-commands.js';
import { registerTagCommands } from './commands/tag-commands.js';
import { registerTriggerCommands } from './commands/trigger-commands.js';

/** The whole command tree; `make` turns a command's options into its session. */
export function buildProgram(make: (command: Command) => CliSession, streams: CliStreams): Command {
  const program = new Command('spoor')
    .description('Spoor from the terminal: projects, sessions, events, rules, tags, jobs, health and configuration')
    .version(cliVersion(), '-V, --version', 'print the version')
    .option('--url <url>', 'the Spoor server (default: SPOOR_URL, else the server you logged in to)')
    .option('--origin <origin>', 'the project\'s origin (default: what `spoor use` stored)')
    .option('--project <project>', 'the project identifier (default: what `spoor use` stored)')
    .option('--json', 'print JSON (the default when stdout is not a terminal)')
    .option('--utc', 'show times in UTC instead of local time')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: (t) => void streams.stdout.write(t), writeErr: (t) => void streams.stderr.write(t) })
    .exitOverride();
  program.addHelpText('after', `
Exit codes: 0 done, 1 error (the server's reason on stderr), 2 usage.
Environment: SPOOR_URL (server), SPOOR_PASSWORD (answers the login prompt), SPOOR_TOKEN (a token or
API key instead of the stored login), XDG_CONFIG_HOME (where spoor/auth.json lives).`);
  for (const register of [registerAuthCommands, registerProjectCommands, registerSessionCommands, registerEventCommands, registerRuleCommands, registerTagCommands, registerTriggerCommands, registerStatusCommands, registerApiKeyCommands, registerOutboundCommands]) {
    register(program, make);
  }
  registerCompletionCommand(program);
  // Every subcommand reports usage errors the same way (exit code 2, not process.exit).
  const configure = (c: Command) => {
    c.exitOverride().showHelpAfterError('(run with --help for usage)').configureOutput({ writeOut: (t) => void streams.stdout.write(t), writeErr: (t) => void streams.stderr.write(t) });
    c.commands.forEach(configure);
  };
  program.commands.forEach(configure);
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
  const program = buildProgram((command) => new CliSession(command.optsWithGlobals<GlobalOptions>(), environment, streams), streams);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    // Help and --version end with 0; every other commander complaint is a usage error.
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    if (err instanceof CliError) {
      streams.stderr.write(`${err.message.split('\n').map((l) => `error: ${l}`).join('\n')}\n`);
      return err.exitCode;
    }
    const down = unreachable(err);
    streams.stderr.write(`error: ${down ?? (err instanceof Error ? err.message : String(err))}\n`);
    return 1;
  }
}
