import { expect } from 'chai';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { requireEngine } from '@spoor/testkit';
import { cliUser, type CliUser } from '../support/cli-runner.js';
import { MODES } from '../support/engine-env.js';
import { startSpoor, type Harness } from '../support/spoor-harness.js';

const PASSWORD = 'long enough pw';

/** The real binary against a real server: signing up, logging in at a prompt, the auth file, expiry, usage errors. */
for (const mode of MODES) {
  describe(`spoor CLI: login and the auth file: ${mode}`, function () {
    this.timeout(120_000);
    let spoor: Harness;
    let user: CliUser;
    const email = `cli-${mode}@example.com`;

    before(async function () {
      const started = await startSpoor(mode);
      requireEngine(this, started ? 'ok' : null, `engines for ${mode} mode`);
      spoor = started!;
      user = await cliUser(spoor.url);
    });
    after(async () => spoor?.stop());

    const authFile = () => join(user.configDir, 'auth.json');

    it('signs up with SPOOR_PASSWORD and keeps the token in auth.json, readable by its owner only', async () => {
      const res = await user.run(['signup', email], { env: { SPOOR_PASSWORD: PASSWORD } });
      expect(res.code, res.stderr).to.equal(0);
      expect(res.json()).to.include({ email, url: spoor.url });
      expect((await stat(authFile())).mode & 0o777).to.equal(0o600);
      expect((await stat(user.configDir)).mode & 0o777).to.equal(0o700);
      const stored = JSON.parse(await readFile(authFile(), 'utf8'));
      expect(stored.token).to.match(/^ey/);
      const who = await user.run(['whoami']);
      expect(who.code, who.stderr).to.equal(0);
      expect(who.json()).to.include({ email, url: spoor.url });
    });

    it('logs in at a password prompt on a terminal without echoing the password', async () => {
      await user.run(['logout']);
      const res = await user.tty(['login', email], { keys: [`${PASSWORD}\r`] });
      expect(res.code, res.stdout).to.equal(0);
      expect(res.stdout).to.contain('Password:');
      expect(res.stdout).to.match(
        new RegExp(`logged in to .* as ${email} until \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}`),
      );
      expect(res.stdout).not.to.contain(PASSWORD);
      expect((await user.run(['whoami'])).json().email).to.equal(email);
    });

    it('reads the password from a pipe too, and says so when the password is wrong', async () => {
      const piped = await user.run(['login', email], { input: `${PASSWORD}\n` });
      expect(piped.code, piped.stderr).to.equal(0);
      const wrong = await user.run(['login', email], { input: 'not the password\n' });
      expect(wrong.code).to.equal(1);
      expect(wrong.stderr).to.match(/^error: login refused: /);
      const short = await user.run(['login', email], { env: { SPOOR_PASSWORD: 'short' } });
      expect(short.code).to.equal(1);
      expect(short.stderr.trim()).to.match(/^error: body\.password: .+/);
    });

    it('tells the user to log in again when the token expired or is refused', async () => {
      const stored = JSON.parse(await readFile(authFile(), 'utf8'));
      await writeFile(authFile(), JSON.stringify({ ...stored, expires_at: Date.now() - 1000 }));
      const expired = await user.run(['whoami']);
      expect(expired.code).to.equal(1);
      expect(expired.stderr).to.match(new RegExp(`expired at .*run \`spoor login ${email}\` again`));
      await writeFile(authFile(), JSON.stringify({ ...stored, token: 'not-a-token' }));
      const refused = await user.run(['projects', 'list']);
      expect(refused.code).to.equal(1);
      expect(refused.stderr).to.match(/refused your credentials .*run `spoor login <email>` again/);
      await writeFile(authFile(), JSON.stringify(stored));
    });

    it('logs out: the server revokes the token, after which commands ask for a login', async () => {
      const { token } = JSON.parse(await readFile(authFile(), 'utf8'));
      const out = await user.run(['logout']);
      expect(out.json()).to.deep.equal({ logged_out: true, revoked: true });
      const refused = await fetch(`${spoor.url}/v1/users/account`, { headers: { authorization: `Bearer ${token}` } });
      expect(refused.status).to.equal(401);
      expect((await user.run(['logout'])).json()).to.deep.equal({ logged_out: false, revoked: false });
      const after = await user.run(['projects', 'list']);
      expect(after.code).to.equal(1);
      expect(after.stderr).to.contain('not logged in: run `spoor login <email>`');
      expect((await user.run(['login', email], { input: `${PASSWORD}\n` })).code).to.equal(0);
      // A damaged auth file is named, and logout (which does not read it) clears it.
      await writeFile(authFile(), '{not json');
      const damaged = await user.run(['whoami']);
      expect(damaged.code).to.equal(1);
      expect(damaged.stderr).to.contain(`${authFile()} is damaged`);
      expect((await user.run(['logout'])).json()).to.deep.equal({ logged_out: true, revoked: false });
      expect((await user.run(['login', email], { input: `${PASSWORD}\n` })).code).to.equal(0);
    });

    it('logs out on a terminal saying what the server did', async () => {
      const shown = await user.tty(['logout']);
      expect(shown.code, shown.stdout).to.equal(0);
      expect(shown.stdout.trim()).to.equal('logged out; the server revoked the token');
      expect((await user.run(['login', email], { input: `${PASSWORD}\n` })).code).to.equal(0);
    });

    it('removes the local login even when the server cannot revoke the token, and says so with exit 1', async () => {
      const stored = JSON.parse(await readFile(authFile(), 'utf8'));
      await writeFile(authFile(), JSON.stringify({ ...stored, url: 'http://127.0.0.1:9' }));
      const res = await user.run(['logout']);
      expect(res.code).to.equal(1);
      expect(res.stderr).to.match(
        /^error: removed the stored login, but the server did not revoke the token: http:\/\/127\.0\.0\.1:9 could not be reached \(.+\); the token stays valid until \d{4}-\d{2}-\d{2}/,
      );
      expect((await user.run(['logout'])).json()).to.deep.equal({ logged_out: false, revoked: false });
      // The server was never told: the token still works there.
      const still = await fetch(`${spoor.url}/v1/users/account`, {
        headers: { authorization: `Bearer ${stored.token}` },
      });
      expect(still.status).to.equal(200);
      expect((await user.run(['login', email], { input: `${PASSWORD}\n` })).code).to.equal(0);
    });

    // Usage errors are the binary's own answers, the same whatever engines the server runs on:
    // once, in embedded mode.
    if (mode === 'embedded') {
      it('exits 2 on usage errors: unknown command or option, missing argument, no project chosen, a bad number', async () => {
        const cases: string[][] = [
          ['frobnicate'],
          ['sessions', 'show'],
          ['sessions', 'list', '--limit', 'ten'],
          ['sessions', 'list'],
          ['login'],
          ['events', 'raw', '--since', 'yesterday-ish'],
        ];
        for (const args of cases) {
          const res = await user.run(args);
          expect(res.code, `spoor ${args.join(' ')}: ${res.stderr}`).to.equal(2);
          expect(res.stderr, args.join(' ')).to.match(/error/);
        }
        const noServer = await user.run(['whoami'], { env: { SPOOR_URL: '' } });
        expect(noServer.code).to.equal(0); // the stored login names the server
        const unreachable = await user.run(['whoami', '--url', 'http://127.0.0.1:9']);
        expect(unreachable.code).to.equal(1);
        expect(unreachable.stderr).to.match(/logged in to .*, not http:\/\/127\.0\.0\.1:9/);
      });
    }
  });
}
