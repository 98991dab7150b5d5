import { expect } from 'chai';
import { requireEngine } from '@spoor/testkit';
import { cliUser, type CliUser } from '../support/cli-runner.js';
import { startSpoor, type Harness } from '../support/spoor-harness.js';

/** `spoor projects retention` of the real binary against a real server (embedded mode; issue 17). */
describe('spoor CLI: projects retention', function () {
  this.timeout(120_000);
  let spoor: Harness;
  let user: CliUser;
  const origin = 'http://localhost:4520';
  const project = 'kept/web';

  before(async function () {
    const started = await startSpoor('embedded', { SPOOR_IP_MODE: 'truncate' });
    requireEngine(this, started ? 'ok' : null, 'the embedded mode');
    spoor = started!;
    user = await cliUser(spoor.url);
    expect(
      (await user.run(['signup', 'retention@example.com'], { env: { SPOOR_PASSWORD: 'long enough pw' } })).code,
    ).to.equal(0);
    expect((await user.run(['projects', 'add', origin, project])).code).to.equal(0);
    expect((await user.run(['use', origin, project])).code).to.equal(0);
  });
  after(async () => spoor?.stop());

  it('sets days and the IP policy, says so, and the project list shows them', async () => {
    const set = await user.tty(['projects', 'retention', '--days', '30', '--ip-policy', 'hash']);
    expect(set.code, set.stderr).to.equal(0);
    expect(set.stdout.trim()).to.equal(`${project} at ${origin}: events and sessions kept 30 days; IP stored: hash`);
    const keep = await user.run(['projects', 'retention', '--days', 'keep']);
    expect(keep.code, keep.stderr).to.equal(0);
    expect(keep.json()).to.include({ project, retention_days: null, ip_policy: 'hash' });
    const listed = (await user.run(['projects', 'list'])).json().projects;
    expect(listed[0]).to.include({ project, retention_days: null, ip_policy: 'hash' });
    const table = await user.tty(['projects', 'list']);
    expect(table.stdout.split('\n')[0], table.stdout).to.match(/RETENTION_DAYS\s+IP_POLICY\s*$/);
  });

  it("refuses bad values with exit code 2, and the server's range with exit code 1", async () => {
    for (const args of [['--days', 'soon'], ['--ip-policy', 'scramble'], []]) {
      const res = await user.run(['projects', 'retention', ...args]);
      expect(res.code, args.join(' ')).to.equal(2);
    }
    const range = await user.run(['projects', 'retention', '--days', '4000']);
    expect(range.code).to.equal(1);
    expect(range.stderr).to.contain('retention_days');
    const other = await user.run(['projects', 'retention', '--days', '7', '--project', 'nobody/web']);
    expect(other.code).to.equal(1);
    expect(other.stderr.trim()).to.equal('error: Project not found');
  });
});
