// `spoor erase` (issue 17) through the real binary, embedded mode: one session by its id, then
// everyone stored with an IP; exactly one selector, or a usage error before any request.
import { expect } from 'chai';
import { requireEngine } from '@spoor/testkit';
import { cliUser, type CliUser } from '../support/cli-runner.js';
import { postAsBrowser, startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';

describe('spoor CLI: erase', function () {
  this.timeout(120_000);
  let spoor: Harness;
  let user: CliUser;
  const origin = 'http://localhost:4560';
  const project = 'cli/erase';
  const t0 = Date.now() - 60_000;
  const sessionIds = async () =>
    ((await user.run(['sessions', 'list'])).json().sessions as Array<{ session_id: string }>)
      .map((s) => s.session_id)
      .sort();

  before(async function () {
    const started = await startSpoor('embedded');
    requireEngine(this, started ? 'ok' : null, 'embedded mode');
    spoor = started!;
    user = await cliUser(spoor.url);
    expect(
      (await user.run(['signup', 'erase@example.com'], { env: { SPOOR_PASSWORD: 'long enough pw' } })).code,
    ).to.equal(0);
    expect((await user.run(['projects', 'add', origin, project])).code).to.equal(0);
    expect((await user.run(['use', origin, project])).code).to.equal(0);
    const events = ['s-keep', 's-gone'].flatMap((sid) =>
      ['pageview', 'click'].map((action, i) => ({ project, action, timestamp: t0 + i * 1000, session_id: sid })),
    );
    expect((await postAsBrowser(spoor.url, origin, events)).status).to.equal(200);
    await waitFor(
      () => user.run(['sessions', 'list']),
      (r) => r.code === 0 && r.json().sessions.length === 2,
      60_000,
      'two sessions',
    );
  });
  after(async () => spoor?.stop());

  it('wants exactly one of --session, --visitor, --ip', async () => {
    for (const args of [[], ['--session', 's-gone', '--ip', '127.0.0.1']]) {
      const run = await user.run(['erase', ...args]);
      expect(run.code, args.join(' ')).to.equal(2);
      expect(run.stderr).to.match(/exactly one of --session <id>, --visitor <id>, --ip <address>/);
    }
    const notAnIp = await user.run(['erase', '--ip', 'nope']);
    expect(notAnIp.code).to.equal(1);
    expect(notAnIp.stderr).to.match(/ip/);
    expect(await sessionIds()).to.deep.equal(['s-gone', 's-keep']);
  });

  it('erases a session, then everyone stored with an IP, waiting for each job', async () => {
    const one = await user.run(['erase', '--session', 's-gone', '--poll-ms', '100']);
    expect(one.code, one.stderr).to.equal(0);
    const job = one.json();
    expect(job).to.include({ kind: 'erasure', status: 'succeeded' });
    expect(job.result).to.include({ sessions: 1, events: 2, overviews_rebuilt: 0 });
    // When the bus's raw copies will be gone too (issue 43): after the job, within the retention.
    expect(job.result.raw_copies_gone_by).to.be.above(Date.now());
    expect(await sessionIds()).to.deep.equal(['s-keep']);
    // Every event of the test came from the loopback address.
    const all = await user.run(['erase', '--ip', '127.0.0.1', '--poll-ms', '100']);
    expect(all.code, all.stderr).to.equal(0);
    expect(all.json().result).to.include({ sessions: 1, events: 2 });
    expect(await sessionIds()).to.deep.equal([]);
  });
});
