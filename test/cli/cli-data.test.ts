import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir, requireEngine } from '@spoor/testkit';
import { cliUser, type CliUser } from '../support/cli-runner.js';
import { postAsBrowser, startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';

/**
 * Every data command of the real binary against a real server: projects, sessions, events, tags,
 * rules, jobs. Embedded mode only: what is checked here is what the CLI sends and prints; the
 * server's side of these routes is checked on both engines by test/e2e/gateway-flow.test.ts
 * (projects, sessions, events, tags), rules-flow.test.ts (rules, their versions and tests) and
 * outbound-flow.test.ts and job-workers.test.ts (the jobs).
 */
describe('spoor CLI: projects, sessions, events, rules, jobs: embedded', function () {
  this.timeout(180_000);
  let spoor: Harness;
  let user: CliUser;
  let files: string;
  const origin = 'http://localhost:4500';
  const project = 'cli/web';
  const t0 = Date.now() - 60_000;

  async function send(sessionId: string, actions: Array<[string, Record<string, unknown>]>) {
    const events = actions.map(([action, payload], i) => ({
      project,
      action,
      timestamp: t0 + i * 1000,
      session_id: sessionId,
      url: `${origin}/p${i}?utm_source=cli`,
      payload,
    }));
    const res = await postAsBrowser(spoor.url, origin, events);
    expect(res.status).to.equal(200);
  }

  before(async function () {
    const started = await startSpoor('embedded');
    requireEngine(this, started ? 'ok' : null, 'engines for embedded mode');
    spoor = started!;
    user = await cliUser(spoor.url);
    files = await makeTempDir('cli-files');
    expect(
      (await user.run(['signup', 'data@example.com'], { env: { SPOOR_PASSWORD: 'long enough pw' } })).code,
    ).to.equal(0);
    expect((await user.run(['projects', 'add', origin, project])).code).to.equal(0);
    expect((await user.run(['use', origin, project])).json()).to.deep.equal({ origin, project });
    await send('s-1', [
      ['pageview', {}],
      ['click', { button: 'buy' }],
      ['signup', { plan: 'team' }],
    ]);
    await send('s-2', [['pageview', {}]]);
    await waitFor(
      () => user.run(['sessions', 'list']),
      (r) => r.code === 0 && r.json().sessions.length === 2,
      60_000,
      'two sessions',
    );
  });
  after(async () => spoor?.stop());

  it('registers a project and prints the DNS record to create; lists, verifies and reads overviews', async () => {
    const added = await user.tty(['projects', 'add', 'https://acme.example', 'acme/web']);
    expect(added.code, added.stdout).to.equal(0);
    expect(added.stdout).to.match(/_spoor\.acme\.example\s+TXT\s+"spoor-verify=[\w-]+"/);
    const list = (await user.run(['projects', 'list'])).json().projects.map((p: any) => [p.project, p.verified]);
    expect(list).to.have.deep.members([
      [project, true],
      ['acme/web', false],
    ]);
    expect((await user.run(['projects', 'verify'])).json()).to.include({ origin, verified: true });
    const agg = await user.run(['trigger', 'aggregation', '--wait', '--poll-ms', '100']);
    expect(agg.code, agg.stderr).to.equal(0);
    expect(agg.json()).to.include({ kind: 'aggregation', status: 'succeeded' });
    expect(agg.stderr).to.match(/aggregation [\w-]+: succeeded/);
    const overview = (await user.run(['projects', 'overview', '--limit', '1'])).json().overviews[0];
    expect(overview).to.include({ origin, project, events: 4, sessions: 2 });
    const table = await user.tty(['projects', 'overview']);
    expect(table.stdout.split('\n')[0]).to.match(/^WINDOW_START\s+WINDOW_END\s+EVENTS\s+SESSIONS/);
    const other = await user.run(['projects', 'overview', '--project', 'nobody/web']);
    expect(other.code).to.equal(1);
    expect(other.stderr.trim()).to.equal('error: Project not found');
  });

  it('reads sessions, their events, attributes and tags; tags by hand and takes it back', async () => {
    const table = await user.tty(['sessions', 'list']);
    expect(table.stdout).to.match(/SESSION_ID\s+FIRST_EVENT_AT\s+LAST_EVENT_AT\s+EVENT_COUNT/);
    expect(table.stdout).to.match(
      /s-1\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\s+3/,
    );
    expect((await user.tty(['sessions', 'list', '--utc'])).stdout).to.match(/\d{2}:\d{2}:\d{2} UTC/);
    const shown = (await user.run(['sessions', 'show', 's-1'])).json();
    expect(shown).to.include({ session_id: 's-1', event_count: 3 });
    const events = (await user.run(['sessions', 'events', 's-1'])).json().events;
    expect(events.map((e: any) => e.action)).to.deep.equal(['pageview', 'click', 'signup']);
    expect((await user.run(['sessions', 'attributes', 's-1'])).json()).to.deep.equal({ attributes: {} });
    expect((await user.run(['sessions', 'tag', 's-1', 'vip'])).code).to.equal(0);
    expect((await user.run(['sessions', 'tags', 's-1'])).json().tags.map((t: any) => t.tag)).to.deep.equal(['vip']);
    expect((await user.run(['tags'])).json().tags.map((t: any) => t.tag)).to.deep.equal(['vip']);
    expect(
      (await user.run(['tags', 'sessions', 'vip', '--since', '1d'])).json().sessions.map((s: any) => s.session_id),
    ).to.deep.equal(['s-1']);
    expect((await user.run(['sessions', 'untag', 's-1', 'vip'])).code).to.equal(0);
    expect((await user.run(['sessions', 'tags', 's-1'])).json().tags).to.deep.equal([]);
    const missing = await user.run(['sessions', 'show', 'no-such-session']);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.match(/^error: .*not found/i);
  });

  it('lists raw and enriched events in a window, and the actions with last-seen times', async () => {
    const raw = (await user.run(['events', 'raw', '--since', String(t0), '--limit', '10'])).json().events;
    expect(raw).to.have.length(4);
    expect(raw.find((e: any) => e.action === 'signup').payload).to.deep.equal({ plan: 'team' });
    const enriched = (await user.run(['events', 'enriched'])).json().events;
    expect(enriched[0].browser.name).to.equal('Chrome');
    expect(enriched[0].utm.source).to.equal('cli');
    expect((await user.run(['events', 'raw', '--until', String(t0)])).json().events).to.deep.equal([]);
    const actions = (await user.run(['events', 'actions']))
      .json()
      .actions.map((a: any) => a.action)
      .sort();
    expect(actions).to.deep.equal(['click', 'pageview', 'signup']);
    const bad = await user.run(['events', 'raw', '--limit', '5000']);
    expect(bad.code).to.equal(1);
    expect(bad.stderr.trim()).to.match(/^error: query\.limit: /);
  });

  it('applies rules from a YAML file, reads and disables them, tests a file against sessions', async () => {
    const yaml = join(files, 'rules.yaml');
    await writeFile(
      yaml,
      'rules:\n  - rule_id: buyer\n    logic: {">=": [{var: event_count}, 3]}\n    tags: [buyer]\n  - rule_id: plan\n    kind: attribute\n    attribute: plan\n    logic: {"==": [{var: action}, signup]}\n    value: {var: payload.plan}\n',
    );
    const applied = await user.run(['rules', 'apply', yaml]);
    expect(applied.code, applied.stderr).to.equal(0);
    expect(applied.json().rules.map((r: any) => r.rule_id)).to.deep.equal(['buyer', 'plan']);
    expect((await user.run(['rules', 'list'])).json().rules).to.have.length(2);
    expect((await user.run(['rules', 'get', 'buyer'])).json().logic).to.deep.equal({
      '>=': [{ var: 'event_count' }, 3],
    });
    expect((await user.run(['rules', 'apply', yaml])).code).to.equal(0);
    expect((await user.run(['rules', 'versions', 'buyer'])).json().versions.map((v: any) => v.version)).to.deep.equal([
      1, 2,
    ]);
    const sessions = join(files, 'sessions.json');
    await writeFile(
      sessions,
      JSON.stringify([
        { session_id: 'a', event_count: 5 },
        { session_id: 'b', event_count: 1 },
      ]),
    );
    const tested = (await user.run(['rules', 'test', yaml, sessions]))
      .json()
      .results.map((r: any) => [r.session_id, r.matched]);
    expect(tested).to.deep.equal([
      ['a', ['buyer']],
      ['b', []],
    ]);
    expect((await user.run(['rules', 'disable', 'buyer'])).json().enabled).to.equal(false);
    const broken = join(files, 'broken.json');
    await writeFile(broken, JSON.stringify([{ rule_id: 'bad', logic: { no_such_op: [1] } }]));
    const refused = await user.run(['rules', 'apply', broken]);
    expect(refused.code).to.equal(1);
    expect(refused.stderr.split('\n').filter(Boolean)).to.deep.equal([
      'error: rule "bad" was refused:',
      "error: body.logic: Unknown operator 'no_such_op'",
    ]);
    expect((await user.run(['rules', 'apply', join(files, 'missing.yaml')])).code).to.equal(2);
    expect((await user.run(['rules', 'get', 'nope'])).stderr.trim()).to.equal('error: Rule not found');
  });

  it('runs every trigger, follows it with --wait, and exits 1 when the job fails', async () => {
    const transitions = await user.run(['trigger', 'transitions', '--wait', '--poll-ms', '100']);
    expect(transitions.code, transitions.stderr).to.equal(0);
    const matrix = (await user.run(['transitions'])).json();
    expect(matrix.sessions).to.equal(2);
    expect(matrix.transitions.find((c: any) => c.from === 'pageview' && c.to === 'click').count).to.equal(1);
    const backfill = await user.tty(['trigger', 'backfill', '--wait', '--poll-ms', '100']);
    expect(backfill.code, backfill.stdout).to.equal(0);
    expect(backfill.stdout).to.match(/backfill [\w-]+: succeeded/);
    const cls = await user.run(['trigger', 'classification', '--sessions', 's-1,s-2', '--wait']);
    expect(cls.json().status).to.equal('succeeded');
    expect((await user.run(['trigger', 'classification'])).code).to.equal(2);
    const failed = await user.run(['trigger', 'notification', '--wait', '--poll-ms', '100']);
    expect(failed.code).to.equal(1);
    expect(failed.stderr).to.match(/error: the notification job failed: .*no notification channels/i);
    const queued = (await user.run(['trigger', 'aggregation', '--since', '2h', '--until', '1h'])).json();
    expect(queued.status).to.equal('queued');
    const job = await waitFor(
      () => user.run(['jobs', 'get', queued.job_id]),
      (r) => r.json().status === 'succeeded',
      30_000,
      'the aggregation',
    );
    expect(job.json().result.window_end - job.json().result.window_start).to.be.closeTo(3_600_000, 5_000);
    const jobs = (await user.run(['jobs', 'list', '--limit', '100'])).json().jobs.map((j: any) => j.kind);
    expect(jobs).to.include.members(['aggregation', 'transitions', 'backfill', 'classification', 'notification']);
    expect((await user.run(['jobs', 'get', 'no-such-job'])).code).to.equal(1);
  });
});
