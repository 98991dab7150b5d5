// `spoor`: the command-line client; apps/cli/bin/spoor.js runs it.
import { runCli } from './cli-program.js';

process.exitCode = await runCli(process.argv.slice(2), process.env, { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin });
