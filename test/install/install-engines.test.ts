import { expect } from 'chai';
import { spawnSync } from 'node:child_process';

// Issue 20, item 7: @maxmind/geoip2-node 7 declares node >= 22, so every install on the Node 20
// the project declares printed EBADENGINE. `npm ci --dry-run` reads the lockfile and checks the
// same engines as a real install, in about a second, without touching node_modules.
describe('npm ci on the declared runtime', () => {
  it('prints no EBADENGINE warning', function () {
    this.timeout(120_000);
    const run = spawnSync('npm', ['ci', '--dry-run', '--no-audit', '--no-fund'], { encoding: 'utf8' });
    expect(run.status, run.stderr).to.equal(0);
    expect(`${run.stdout}${run.stderr}`).not.to.contain('EBADENGINE');
  });
});
