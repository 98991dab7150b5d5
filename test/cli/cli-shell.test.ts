// The `spoor` binary at a shell (issue 20, item 9): a reader that closes the pipe early ends the
// command quietly, and an unknown command is a usage error even with --help. No server needed.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { cliUser, SPOOR_BIN, type CliUser } from '../support/cli-runner.js';
import { failed } from '../support/cli-assertions.js';

/** Runs spoor with stdout a pipe whose reading end is closed before spoor writes, as `| head -1` does. */
function runIntoClosedPipe(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [SPOOR_BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', TZ: 'UTC' },
  });
  child.stdout!.destroy();
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('CLI at a shell: closed pipes and unknown commands', function () {
  this.timeout(30_000);
  let user: CliUser;

  before(async () => {
    user = await cliUser('http://127.0.0.1:9');
  });

  for (const args of [['sessions', 'list', '--help'], ['--help'], ['completion', 'bash']]) {
    it(`spoor ${args.join(' ')} | head -1: exit 0 and nothing on stderr`, async () => {
      const run = await runIntoClosedPipe(args);
      expect(run.stderr).to.equal('');
      expect(run.code).to.equal(0);
    });
  }

  it('an unknown command exits 2 with or without --help, at the top and under a command', async () => {
    // `spoor export` exists since issue 17: `frobnicate` is a command no one will add.
    const cases = [
      ['frobnicate'],
      ['frobnicate', '--help'],
      ['frobnicate', '-h'],
      ['--url', 'http://127.0.0.1:9', 'frobnicate', '--help'],
      ['sessions', 'frobnicate', '--help'],
    ];
    for (const args of cases) {
      const name = args.find((a) => a === 'frobnicate');
      expect(failed(await user.run(args), 2), args.join(' ')).to.contain(`error: unknown command '${name}'`);
    }
  });

  it('--help of a known command still exits 0, also after options meant for the default subcommand', async () => {
    for (const args of [
      ['--help'],
      ['sessions', '--help'],
      ['sessions', 'list', '--help'],
      ['sessions', '--limit', '5', '--help'],
      ['help', 'sessions'],
    ]) {
      const run = await user.run(args);
      expect(run.code, `spoor ${args.join(' ')}: ${run.stderr}`).to.equal(0);
      expect(run.stdout, args.join(' ')).to.match(/^Usage: spoor/);
    }
  });
});
