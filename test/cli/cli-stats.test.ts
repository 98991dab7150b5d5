// `spoor stats` (issue 44) through the real binary, embedded mode: what the CLI sends (metrics,
// dimensions, filters, ranges, comparison, goal) and prints (a table, or the API's answer as
// JSON). The counting itself is the store's, checked on both engines by
// libs/store/test/store-stats.contract.test.ts.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { requireEngine } from '@spoor/testkit';
import { ApiClient } from '../support/api-client.js';
import { failed, ok } from '../support/cli-assertions.js';
import { cliUser, type CliUser } from '../support/cli-runner.js';
import { post, startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';

describe('spoor CLI: stats', function () {
  this.timeout(120_000);
  let spoor: Harness;
  let user: CliUser;
  let api: ApiClient;
  const origin = 'http://localhost:4590';
  const project = 'cli/stats';
  const t0 = Date.now() - 30 * 60_000;
  const range = ['--since', String(t0 - 60_000), '--until', String(Date.now() + 60_000)];

  async function send(sessionId: string, actions: string[], country: string) {
    const events = actions.map((action, i) => ({
      project,
      action,
      timestamp: t0 + i * 1000,
      session_id: sessionId,
      url: `${origin}/${country.toLowerCase()}/p${i}`,
    }));
    expect((await post(`${spoor.url}/v1/event/batch`, { events }, { origin })).status).to.equal(200);
  }

  before(async function () {
    const started = await startSpoor('embedded');
    requireEngine(this, started ? 'ok' : null, 'embedded mode');
    spoor = started!;
    user = await cliUser(spoor.url);
    expect(
      (await user.run(['signup', 'stats@example.com'], { env: { SPOOR_PASSWORD: 'long enough pw' } })).code,
    ).to.equal(0);
    expect((await user.run(['projects', 'add', origin, project])).code).to.equal(0);
    expect((await user.run(['use', origin, project])).code).to.equal(0);
    api = new ApiClient(spoor.url, JSON.parse(await readFile(join(user.configDir, 'auth.json'), 'utf8')).token);
    await send('a', ['pageview', 'pageview', 'signup'], 'DE');
    await send('b', ['pageview'], 'FR');
    await send('c', ['pageview', 'click'], 'DE');
    await waitFor(
      () => api.get('/v1/sessions', { origin, project, limit: 10 }),
      (r) => r.body?.sessions?.length === 3,
      60_000,
      'three sessions',
    );
  });
  after(async () => spoor?.stop());

  it('prints the API’s answer as JSON: figures with a comparison, a filter and a goal', async () => {
    const figures = ok(
      await user.run(['stats', '--metrics', 'sessions,events,bounce_rate', '--compare', 'previous', ...range]),
    );
    expect(figures.results).to.deep.equal([
      { dimensions: [], metrics: [3, 6, 2 / 3], comparison: { metrics: [0, 0, 0], change: [null, null, 2 / 3] } },
    ]);
    const goal = ok(
      await user.run([
        'stats',
        '--metrics',
        'sessions,conversions',
        '--goal-action',
        'signup',
        '--filter',
        'entry_page contains /de/',
        ...range,
      ]),
    );
    expect(goal.results[0].metrics).to.deep.equal([2, 1]);
    const pages = ok(
      await user.run([
        'stats',
        '--metrics',
        'pageviews',
        '--dimensions',
        'page',
        '--order',
        'page:asc',
        '--limit',
        '2',
        ...range,
      ]),
    );
    expect(pages.results.map((r: { dimensions: string[] }) => r.dimensions[0])).to.deep.equal(['/de/p0', '/de/p1']);
    expect(pages.total_rows).to.equal(3);
  });

  it('prints a table for people, rates as percentages and the change beside each metric', async () => {
    const table = await user.tty([
      'stats',
      '--metrics',
      'pageviews,bounce_rate',
      '--dimensions',
      'page',
      '--compare',
      'previous',
      ...range,
    ]);
    expect(table.code, table.stderr).to.equal(0);
    const lines = table.stdout.trim().split(/\r?\n/);
    expect(lines[1], table.stdout).to.match(/^PAGE\s+PAGEVIEWS\s+CHANGE\s+BOUNCE_RATE\s+CHANGE$/);
    expect(lines[2]).to.match(/^\/de\/p0\s+2\s+-\s+50%\s+\+50 pt$/);
    const series = await user.tty(['stats', '--metrics', 'events', '--dimensions', 'time', '--range', '24h']);
    expect(series.code, series.stderr).to.equal(0);
    expect(series.stdout).to.match(/TIME:HOUR\s+EVENTS/);
  });

  it('refuses bad options with exit code 2 and what the server refuses with exit code 1', async () => {
    expect(failed(await user.run(['stats', '--filter', 'country resembles DE']), 2)).to.contain('a filter is');
    expect(failed(await user.run(['stats', '--range', 'fortnight']), 2)).to.contain("argument 'fortnight' is invalid");
    expect(failed(await user.run(['stats', '--range', '7d', '--since', '1d']), 2)).to.contain('not both');
    expect(failed(await user.run(['stats', '--metrics', 'conversions']), 1)).to.contain('needs a goal');
  });
});
