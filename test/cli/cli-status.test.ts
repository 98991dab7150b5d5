// The `spoor` binary against a running server: health now and over time, help, version, unknown
// commands, and the shell completion scripts it prints.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { execFile, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { requireEngine } from '@spoor/testkit';
import { cliUser, type CliUser } from '../support/cli-runner.js';
import { failed, ok } from '../support/cli-assertions.js';
import { MODES } from '../support/engine-env.js';
import { startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';

const run = promisify(execFile);
const SERVICES = ['ingest', 'enricher', 'sessionizer', 'classifier', 'worker', 'gateway'];

/** A loopback port that nothing listens on any more (fetch refuses "bad ports" such as 1). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** What bash offers for `words` (the last one being typed) once the script is sourced. */
async function bashComplete(script: string, words: string[]): Promise<string[]> {
  const quoted = words.map((w) => `'${w}'`).join(' ');
  const program = `eval "$SPOOR_COMPLETION"; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _spoor; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const { stdout } = await run('bash', ['--norc', '--noprofile', '-c', program], {
    env: { PATH: process.env.PATH ?? '', SPOOR_COMPLETION: script },
  });
  return stdout.split('\n').filter(Boolean);
}

for (const mode of MODES) {
  describe(`CLI: spoor status, help, version, completion: ${mode}`, function () {
    this.timeout(120_000);
    let spoor: Harness;
    let user: CliUser;

    before(async function () {
      // Health is system-wide, for operators only: this user is one (SPOOR_ADMIN_EMAILS).
      const operator = `cli-${randomUUID().slice(0, 8)}@example.com`;
      const started = await startSpoor(mode, {
        SPOOR_HEARTBEAT_MS: '200',
        SPOOR_HEALTH_SNAPSHOT_MS: '300',
        SPOOR_ADMIN_EMAILS: operator,
      });
      requireEngine(this, started ? 'ok' : null, `engines for ${mode} mode`);
      spoor = started!;
      user = await cliUser(spoor.url);
      ok(await user.run(['signup', operator], { env: { SPOOR_PASSWORD: 'long enough pw' } }));
      ok(await user.run(['projects', 'add', 'http://localhost:4800', 'status/web']));
      ok(await user.run(['use', 'http://localhost:4800', 'status/web']));
    });
    after(async () => spoor?.stop());

    const serverVersion = async () =>
      ((await (await fetch(`${spoor.url}/openapi.json`)).json()) as { info: { version: string } }).info.version;

    it("status health: every service alive, the server's version, the storage of this mode", async () => {
      const health = ok(await user.run(['status', 'health']));
      expect(health.status).to.equal('ok');
      expect(health.problems).to.deep.equal([]);
      expect(health.services.map((s: any) => [s.name, s.alive])).to.deep.equal(SERVICES.map((n) => [n, true]));
      expect(health.version).to.equal(await serverVersion());
      expect(health.storage.kind).to.equal(mode === 'embedded' ? 'duckdb' : 'clickhouse');
      // `status` alone is `status health`.
      expect(ok(await user.run(['status'])).services.map((s: any) => s.name)).to.deep.equal(SERVICES);
    });

    it('status: exits 1 without a login, with a refused token, and when the server is down', async () => {
      const stranger = await cliUser(spoor.url);
      expect(failed(await stranger.run(['status']), 1)).to.equal(
        'error: not logged in: run `spoor login <email>` (or set SPOOR_TOKEN)\n',
      );
      expect(failed(await stranger.run(['status'], { env: { SPOOR_TOKEN: 'spk_not_a_key' } }), 1)).to.match(
        /^error: the server refused your credentials \(.+\); run `spoor login <email>` again\n$/,
      );
      const down = await stranger.run(['--url', `http://127.0.0.1:${await closedPort()}`, 'status'], {
        env: { SPOOR_TOKEN: 'spk_not_a_key' },
      });
      expect(failed(down, 1)).to.equal('error: cannot reach the server: ECONNREFUSED\n');
    });

    it("status and status history: exit 1 with the server's words for an account that is not an operator", async () => {
      const other = await cliUser(spoor.url);
      ok(
        await other.run(['signup', `not-ops-${randomUUID().slice(0, 8)}@example.com`], {
          env: { SPOOR_PASSWORD: 'long enough pw' },
        }),
      );
      for (const args of [['status'], ['status', 'history']]) {
        expect(failed(await other.run(args), 1), args.join(' ')).to.match(
          /^error: Operators only: an ID token of an account named in SPOOR_ADMIN_EMAILS.*\n$/,
        );
      }
    });

    it('status history --limit 5: the newest five snapshots, newest first; a bad --limit fails', async () => {
      const history = await waitFor(
        () => user.run(['status', 'history', '--limit', '5']),
        (r) => r.code === 0 && r.json().snapshots.length === 5,
        20_000,
        'five snapshots',
      );
      const snapshots = history.json().snapshots as Array<{ checked_at: number; status: string; services: unknown[] }>;
      const times = snapshots.map((s) => s.checked_at);
      expect(times).to.deep.equal([...times].sort((a, b) => b - a));
      for (const s of snapshots) expect(s).to.include.keys('status', 'services', 'ingest', 'lag');
      expect(failed(await user.run(['status', 'history', '--limit', 'five']), 2)).to.contain(
        '--limit must be a whole number',
      );
      expect(failed(await user.run(['status', 'history', '--limit', '0']), 1)).to.match(/^error: query\.limit: .+\n$/);
    });

    it('status on a terminal: the human view, status and services first', async () => {
      const shown = await user.tty(['status']);
      expect(shown.code, shown.stdout).to.equal(0);
      const lines = shown.stdout.split(/\r?\n/);
      expect(lines[0]).to.match(/^status: +ok$/);
      expect(lines.find((l) => l.startsWith('services:'))).to.equal(
        `services: ${SERVICES.map((n) => `${n} up`).join(', ')}`,
      );
      expect(lines.find((l) => l.startsWith('version:'))).to.contain(await serverVersion());
      expect(shown.stdout).to.match(/^TOPIC +GROUP +LAG\r?$/m);
      expect(() => JSON.parse(shown.stdout)).to.throw();
    });

    // Help, version and completion are the binary's own answers, the same whatever engines the
    // server runs on: once, in embedded mode.
    if (mode === 'embedded') {
      it('--help and webhooks add --help exit 0 and explain the options', async () => {
        const help = await user.run(['--help']);
        expect(help.code).to.equal(0);
        expect(help.stdout).to.match(/^Usage: spoor \[options\] \[command\]/);
        for (const text of [
          '--url <url>',
          '--json',
          'webhooks',
          'channels',
          'schedules',
          'alerts',
          'apikey',
          'Exit codes: 0 done, 1 error',
          'SPOOR_TOKEN',
        ])
          expect(help.stdout).to.contain(text);
        const sub = await user.run(['webhooks', 'add', '--help']);
        expect(sub.code).to.equal(0);
        expect(sub.stdout).to.match(/^Usage: spoor webhooks add \[options\] <url>/);
        expect(sub.stdout).to.match(
          /--events <types> +comma-separated: rule\.matched, threshold\.crossed,\s+digest\.created/,
        );
        expect(sub.stdout).to.contain('--description <text>');
      });

      it("--version prints the build's version, the server's too; an unknown command exits 2", async () => {
        const version = await user.run(['--version']);
        expect(version.code).to.equal(0);
        expect(version.stdout).to.equal(`${await serverVersion()}\n`);
        // Both read dist/build-info.json: it must be the build's `git describe`, not the fallback.
        const built = JSON.parse(readFileSync('dist/build-info.json', 'utf8')) as { version: string };
        expect(version.stdout.trim()).to.equal(built.version).and.not.equal('v0.0.0-0-gunknown');
        expect(version.stdout).to.match(/^v\d+\.\d+\.\d+/);
        // `git describe` of the built commit, or without a tag its commits counted (not `-0-`, issue 20).
        const [, count, hash] = /-(\d+)-g([0-9a-f]+)$/.exec(built.version)!;
        const git = (...args: string[]) => spawnSync('git', args, { encoding: 'utf8' });
        const described = git('describe', '--tags', '--long', hash!);
        if (described.status === 0) expect(built.version).to.equal(described.stdout.trim());
        else
          expect(Number(count))
            .to.equal(Number(git('rev-list', '--count', hash!).stdout.trim()))
            .and.be.greaterThan(0);
        expect(failed(await user.run(['bogus']), 2)).to.contain("error: unknown command 'bogus'");
        expect(
          failed(
            await user.run(['webhooks', 'add', 'http://127.0.0.1:1/hook', '--events', 'rule.matched', '--bogus']),
            2,
          ),
        ).to.contain("unknown option '--bogus'");
      });

      it('completion bash: commands, subcommands and options of `spoor webhooks add`; fish exits 2', async () => {
        const printed = await user.run(['completion', 'bash']);
        expect(printed.code, printed.stderr).to.equal(0);
        const script = printed.stdout;
        expect(await bashComplete(script, ['spoor', 'web'])).to.deep.equal(['webhooks']);
        expect(await bashComplete(script, ['spoor', 'webhooks', ''])).to.include.members([
          'add',
          'list',
          'get',
          'deliveries',
          'enable',
          'delete',
        ]);
        expect(await bashComplete(script, ['spoor', 'webhooks', 'de'])).to.have.members(['delete', 'deliveries']);
        const options = await bashComplete(script, ['spoor', 'webhooks', 'add', '--']);
        expect(options).to.include.members(['--events', '--description', '--help', '--json']);
        expect(options).to.deep.equal([...new Set(options)]);
        expect(await bashComplete(script, ['spoor', 'channels', 'add', '--r'])).to.deep.equal(['--recipients']);
        expect(failed(await user.run(['completion', 'fish']), 2)).to.contain('<shell> is bash or zsh');
      });

      it('completion zsh prints a script that `zsh -n` accepts', async function () {
        const printed = await user.run(['completion', 'zsh']);
        expect(printed.code, printed.stderr).to.equal(0);
        expect(printed.stdout).to.match(/^#compdef spoor\n/);
        if (spawnSync('zsh', ['--version']).error) this.skip();
        const checked = spawnSync('zsh', ['-n'], { input: printed.stdout, encoding: 'utf8' });
        expect(checked.status, checked.stderr).to.equal(0);
      });
    }
  });
}
