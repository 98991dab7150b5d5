// `spoor`: the command-line client; apps/cli/bin/spoor.js runs it.
import { runCli } from './cli-program.js';

// A reader that stops early (`spoor sessions list --help | head -1`) closes the pipe, and the next
// write fails with EPIPE, an unhandled 'error' event that printed a stack trace (issue 20). The
// rest of the output has nowhere to go, so the command ends quietly with 0, whatever it printed.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(0);
});

process.exitCode = await runCli(process.argv.slice(2), process.env, {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
});
