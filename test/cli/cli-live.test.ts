// `spoor live` against a running server (issue 18): --once prints one snapshot (JSON when piped,
// the view on a terminal), following prints one JSON line per snapshot until Ctrl-C ends it
// with 0, a terminal gets the view redrawn in place, and refusals exit 1 with the server's reason.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { requireEngine } from '@spoor/testkit';
import { SPOOR_BIN, cliUser, type CliUser } from '../support/cli-runner.js';
import { failed, ok } from '../support/cli-assertions.js';
import { postAsBrowser, startSpoor, type Harness } from '../support/spoor-harness.js';

describe('CLI: spoor live: embedded', function () {
  this.timeout(90_000);
  let spoor: Harness;
  let user: CliUser;
  const origin = 'http://localhost:4820';
  const project = 'live/cli';

  before(async function () {
    const started = await startSpoor('embedded');
    requireEngine(this, started ? 'ok' : null, 'engines for embedded mode');
    spoor = started!;
    user = await cliUser(spoor.url);
    ok(await user.run(['signup', 'live-cli@example.com'], { env: { SPOOR_PASSWORD: 'long enough pw' } }));
    ok(await user.run(['projects', 'add', origin, project]));
    ok(await user.run(['use', origin, project]));
    const now = Date.now();
    const events = [
      { project, action: 'pageview', timestamp: now - 1000, session_id: 'cli-a', url: `${origin}/pricing` },
      { project, action: 'click', timestamp: now, session_id: 'cli-b', url: `${origin}/docs` },
    ];
    expect((await postAsBrowser(spoor.url, origin, events)).status).to.equal(200);
  });
  after(async () => spoor?.stop());

  it('--once prints one snapshot as JSON when piped', async () => {
    let snap: any;
    // The enricher stores the events a moment after ingest answered: ask again until they show.
    for (let i = 0; i < 20 && snap?.visitors !== 2; i++) snap = ok(await user.run(['live', '--once']));
    expect(snap).to.include({ origin, project, visitors: 2 });
    expect(snap.pages.map((p: any) => p.path).sort()).to.deep.equal(['/docs', '/pricing']);
    expect(snap.events.map((e: any) => e.action)).to.deep.equal(['click', 'pageview']);
  });

  it('--once on a terminal prints the view', async () => {
    const r = await user.tty(['live', '--once']);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout)
      .to.contain('2 visitors in the last 5 minutes')
      .and.contain('Pages now')
      .and.contain('/pricing')
      .and.contain('Latest events');
  });

  it('follows with one JSON line per snapshot when piped, and Ctrl-C ends it with 0', async () => {
    const xdg = dirname(user.configDir);
    const child = spawn(process.execPath, [SPOOR_BIN, 'live'], {
      env: { PATH: process.env.PATH ?? '', HOME: xdg, XDG_CONFIG_HOME: xdg, SPOOR_URL: spoor.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const deadline = Date.now() + 15_000;
    while (stdout.split('\n').filter(Boolean).length < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGINT');
    expect(await exited).to.equal(0);
    const lines = stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(lines.length).to.be.at.least(2);
    expect(lines[1].at).to.be.above(lines[0].at);
    expect(lines.every((s) => s.visitors === 2)).to.equal(true);
  });

  it('redraws the view in place on a terminal until Ctrl-C', async () => {
    // bash runs the one command in `script`'s terminal itself; dash would stay as its parent and die of the Ctrl-C (130) whatever spoor did.
    const r = await user.tty(['live'], { keys: ['', '', '', '\x03'], env: { SHELL: '/bin/bash' } });
    expect(r.code, r.stdout.slice(-300)).to.equal(0);
    expect(r.stdout.split('\x1b[H\x1b[2J').length - 1).to.be.at.least(1);
    expect(r.stdout).to.contain('Pages now');
  });

  it("exits 1 with the server's reason for another project", async () => {
    const stderr = failed(
      await user.run(['live', '--once', '--origin', 'http://localhost:4899', '--project', 'not/mine']),
      1,
    );
    expect(stderr).to.contain('Project not found');
  });
});
