// `spoor export`, `spoor projects delete` and `spoor account delete` (issue 17) through the real binary, embedded mode:
// the exported file is read back independently; the deletion wants its typed confirmation.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir, readExport, requireEngine } from '@spoor/testkit';
import { cliUser, type CliUser } from '../support/cli-runner.js';
import { postAsBrowser, startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';

describe('spoor CLI: export, projects delete and account delete', function () {
  this.timeout(120_000);
  let spoor: Harness;
  let user: CliUser;
  let files: string;
  const origin = 'http://localhost:4550';
  const project = 'cli/export';
  const t0 = Date.now() - 60_000;

  before(async function () {
    const started = await startSpoor('embedded');
    requireEngine(this, started ? 'ok' : null, 'embedded mode');
    spoor = started!;
    user = await cliUser(spoor.url);
    files = await makeTempDir('cli-export');
    expect(
      (await user.run(['signup', 'export@example.com'], { env: { SPOOR_PASSWORD: 'long enough pw' } })).code,
    ).to.equal(0);
    expect((await user.run(['projects', 'add', origin, project])).code).to.equal(0);
    expect((await user.run(['use', origin, project])).code).to.equal(0);
    const events = ['pageview', 'click', 'signup'].map((action, i) => ({
      project,
      action,
      timestamp: t0 + i * 1000,
      session_id: 's-cli',
      payload: { i },
    }));
    expect((await postAsBrowser(spoor.url, origin, events)).status).to.equal(200);
    await waitFor(
      () => user.run(['sessions', 'list']),
      (r) => r.code === 0 && r.json().sessions.length === 1,
      60_000,
      'one session',
    );
  });
  after(async () => spoor?.stop());

  it('exports events as Parquet and sessions as CSV to files, and NDJSON to stdout', async () => {
    const parquet = join(files, 'events.parquet');
    const run = await user.run(['export', 'events', '--format', 'parquet', '-o', parquet, '--poll-ms', '100']);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stderr).to.match(/wrote 3 rows, [\d,]+ bytes to .*events\.parquet/);
    const rows = await readExport('parquet', await readFile(parquet));
    expect(rows.map((r) => [r.action, JSON.parse(r.payload!).i])).to.deep.equal([
      ['pageview', 0],
      ['click', 1],
      ['signup', 2],
    ]);

    const csv = join(files, 'sessions.csv');
    expect((await user.run(['export', 'sessions', '-o', csv, '--poll-ms', '100'])).code).to.equal(0);
    expect((await readExport('csv', await readFile(csv))).map((r) => [r.session_id, r.event_count])).to.deep.equal([
      ['s-cli', '3'],
    ]);

    const out = await user.run([
      'export',
      'events',
      '--format',
      'ndjson',
      '-o',
      '-',
      '--since',
      String(t0 + 1000),
      '--poll-ms',
      '100',
    ]);
    expect(out.code, out.stderr).to.equal(0);
    expect(
      out.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).action),
    ).to.deep.equal(['click', 'signup']);

    const bad = await user.run(['export', 'visitors']);
    expect(bad.code).to.equal(2);
  });

  it('deletes the project only with the identifier repeated', async () => {
    const refused = await user.run(['projects', 'delete', '--confirm', 'cli/other']);
    expect(refused.code).to.equal(2);
    expect(refused.stderr).to.match(/--confirm must repeat the project identifier \(cli\/export\)/);
    expect((await user.run(['projects', 'list'])).json().projects).to.have.length(1);
    const deleted = await user.run(['projects', 'delete', '--confirm', project, '--poll-ms', '100']);
    expect(deleted.code, deleted.stderr).to.equal(0);
    expect(deleted.json()).to.include({ kind: 'project_deletion', status: 'succeeded' });
    expect((await user.run(['projects', 'list'])).json().projects).to.deep.equal([]);
    const gone = await user.run(['sessions', 'list']);
    expect(gone.code).to.equal(1);
    expect(gone.stderr.trim()).to.equal('error: Project not found');
  });

  // Last: it deletes the account the other tests use.
  it('deletes the account only with its email repeated, then forgets the login', async () => {
    expect((await user.run(['projects', 'add', 'http://localhost:4551', 'cli/left'])).code).to.equal(0);
    const refused = await user.run(['account', 'delete', '--confirm', 'someone@example.com']);
    expect(refused.code).to.equal(2);
    expect(refused.stderr).to.match(/--confirm must repeat the account's email \(export@example\.com\)/);
    expect((await user.run(['whoami'])).code).to.equal(0);
    const deleted = await user.run(['account', 'delete', '--confirm', 'export@example.com', '--poll-ms', '100']);
    expect(deleted.code, deleted.stderr).to.equal(0);
    expect(deleted.json()).to.include({ deleted: true });
    expect(await spoor.store.accounts.findByEmail('export@example.com')).to.equal(null);
    expect(await spoor.store.projects.find('http://localhost:4551', 'cli/left')).to.equal(null);
    const after = await user.run(['whoami']);
    expect(after.code).to.equal(1);
    expect(after.stderr).to.match(/not logged in|spoor login/i);
    const login = await user.run(['login', 'export@example.com'], { env: { SPOOR_PASSWORD: 'long enough pw' } });
    expect(login.code).to.equal(1);
  });
});
