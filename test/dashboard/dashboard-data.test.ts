import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { readExport } from '@spoor/testkit';
import { waitFor, type Harness } from '../support/spoor-harness.js';
import { go, see, type DashboardTab } from './dashboard-browser.js';
import { startDashboardRig, type DashboardRig } from './dashboard-rig.js';
import { seedProject, type SeededProject } from './dashboard-events.js';

// Embedded only: the export and deletion jobs are the engines' own, tested on every engine in
// test/e2e/data-ownership.test.ts; what is checked here is what the dashboard does with them.
const MODE = 'embedded';
const DAY = 86_400_000;
type Format = 'csv' | 'ndjson' | 'parquet';

/** The value of a datetime-local input `agoMs` ago in the page's time zone, and the instant it means there. */
const localTimeAgo = (page: Page, agoMs: number) =>
  page.evaluate((ago) => {
    const d = new Date(Date.now() - ago);
    const value = new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    return { value, ms: new Date(value).getTime() };
  }, agoMs);

/**
 * A user's data, from the dashboard (issue 17): the sessions page's Export (sessions and events,
 * over its time filter; the DNS gate's message), and the settings' Danger zone (delete the
 * project, delete the account), each behind a typed confirmation.
 */
describe('Dashboard: export and the danger zone', function () {
  this.timeout(240_000);
  let rig: DashboardRig;
  let spoor: Harness;
  let seeded: SeededProject;
  let tab: DashboardTab;
  let page: Page;

  before(async function () {
    rig = await startDashboardRig(this, MODE);
    ({ spoor, tab, page } = rig);
    seeded = await seedProject(spoor.url);
    await page.goto(`${spoor.url}/`);
    await page.getByLabel('Email').fill(seeded.email);
    await page.getByLabel('Password').fill(seeded.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: `Overview of ${seeded.project}` }).waitFor();
  });
  after(async () => rig?.stop());

  const scopeOf = (project: string, origin = seeded.origin) => ({ origin, project });
  const exportStatus = () => page.getByRole('region', { name: 'Export' }).getByRole('status');

  /** Picks a format, presses an export button and reads the file the browser saved. */
  async function download(
    button: string,
    format: Format,
  ): Promise<{ name: string; rows: Array<Record<string, unknown>> }> {
    await page.getByLabel('Format').selectOption(format);
    const [file] = await Promise.all([
      page.waitForEvent('download', { timeout: 60_000 }),
      page.getByRole('button', { name: button, exact: true }).click(),
    ]);
    return { name: file.suggestedFilename(), rows: await readExport(format, await readFile((await file.path())!)) };
  }

  const pick = async (project: string, origin = seeded.origin) => {
    await page.locator('#project-picker').selectOption(`${origin} ${project}`);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
  };

  it('exports the sessions it lists as CSV, all of them and then those of the time filter', async () => {
    await go(page, 'Sessions');
    const all = await download('Export sessions', 'csv');
    const listed = (
      await seeded.api.get('/v1/sessions', { ...scopeOf(seeded.project), limit: 1000 })
    ).body.sessions.map((s: { session_id: string }) => s.session_id);
    expect(all.name).to.match(/\.csv$/);
    expect(all.rows.map((r) => r['session_id']).sort())
      .to.deep.equal([...listed].sort())
      .and.to.have.length(3);
    await see(page, `Downloaded ${all.name}: 3 sessions`);

    // The page's time window is the export's: the session of three days ago falls out.
    const from = await localTimeAgo(page, DAY);
    await page.getByLabel('From').fill(from.value);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL('**/sessions?from=*');
    await see(page, /^From .* to now \(the time filter above\)/);
    const recent = await download('Export sessions', 'csv');
    const recentListed = (
      await seeded.api.get('/v1/sessions', { ...scopeOf(seeded.project), window_start: from.ms, limit: 1000 })
    ).body.sessions.map((s: { session_id: string }) => s.session_id);
    expect(recent.rows.map((r) => r['session_id']).sort())
      .to.deep.equal([...recentListed].sort())
      .and.to.deep.equal(['visit-bounce', 'visit-reader']);
    await rig.finish('export-sessions');
  });

  it('exports events as NDJSON: every event the API lists', async () => {
    await page.goto(`${spoor.url}/sessions`);
    await page.getByRole('heading', { name: 'Sessions' }).waitFor();
    const events = await download('Export events', 'ndjson');
    const listed = (await seeded.api.get('/v1/events', { ...scopeOf(seeded.project), limit: 1000 })).body.events.map(
      (e: { event_id: string }) => e.event_id,
    );
    expect(events.name).to.match(/\.ndjson$/);
    expect(events.rows.map((r) => r['event_id']).sort())
      .to.deep.equal([...listed].sort())
      .and.to.have.length(7);
    await see(page, /: 7 events, /);
    await rig.finish('export-events');
  });

  it('says why events of an unverified domain cannot be exported, and still exports its sessions', async () => {
    const gated = scopeOf('gate/web', 'https://unverified.example');
    expect((await seeded.api.post('/v1/users/projects', gated)).status).to.equal(200);
    await page.goto(`${spoor.url}/sessions`); // a reload reads the new project into the picker
    await pick(gated.project, gated.origin);
    tab.expectFailure({ status: 403, path: '/v1/exports' });
    await page.getByRole('button', { name: 'Export events', exact: true }).click();
    await see(
      page,
      'The domain of https://unverified.example is not verified, so its events cannot be exported yet (sessions can).',
    );
    expect(await exportStatus().getAttribute('class')).to.contain('error');
    expect(await exportStatus().getByRole('link', { name: 'Projects' }).getAttribute('href')).to.equal('/projects');
    const sessions = await download('Export sessions', 'csv');
    expect(sessions.rows).to.deep.equal([]);
    await see(page, `Downloaded ${sessions.name}: 0 sessions`);
    await rig.finish('export-unverified');
  });

  it("sets the retention days and IP policy, shows the API's refusal, and keeps forever when emptied", async () => {
    await page.goto(`${spoor.url}/settings`);
    await pick(seeded.project);
    const card = page.getByRole('region', { name: 'Data retention' });
    const mine = async () =>
      (
        (await seeded.api.get('/v1/projects')).body.projects as Array<{
          origin: string;
          project: string;
          retention_days: number | null;
          ip_policy: string;
        }>
      ).find((p) => p.project === seeded.project && p.origin === seeded.origin)!;
    await see(page, 'Events and sessions are kept until you delete them');
    const days = card.getByLabel('Keep events and sessions (days)');
    await days.fill('0');
    await card.getByLabel('Visitor IP addresses').selectOption('truncate');
    tab.expectFailure({ status: 422, path: '/v1/projects' });
    await card.getByRole('button', { name: 'Save' }).click();
    await see(page, /^retention_days: .*1/);
    expect(await mine(), 'the refused save changed nothing').to.include({ retention_days: null, ip_policy: 'full' });
    await days.fill('30');
    await card.getByRole('button', { name: 'Save' }).click();
    await see(page, 'Events and sessions are kept 30 days; IP addresses are stored truncated.');
    expect(await mine()).to.include({ retention_days: 30, ip_policy: 'truncate' });
    await card.getByLabel('Keep events and sessions (days)').fill('');
    await card.getByLabel('Visitor IP addresses').selectOption('full');
    await card.getByRole('button', { name: 'Save' }).click();
    await see(page, 'Events and sessions are kept until you delete them; IP addresses are stored in full.');
    expect(await mine()).to.include({ retention_days: null, ip_policy: 'full' });
    expect(tab.errors).to.deep.equal([]);
  });

  it('deletes a project once its identifier is typed, and leaves it for the projects page', async () => {
    const doomed = scopeOf('site/doomed');
    expect((await seeded.api.post('/v1/users/projects', doomed)).status).to.equal(200);
    await page.goto(`${spoor.url}/settings`);
    await pick(doomed.project);
    const zone = page.getByRole('region', { name: 'Danger zone' });
    const confirm = zone.getByLabel('To confirm, type the project identifier: site/doomed');
    const button = zone.getByRole('button', { name: 'Delete project' });
    expect(await button.isDisabled(), 'before typing').to.equal(true);
    await confirm.fill('site/doom');
    expect(await button.isDisabled(), 'a prefix').to.equal(true);
    await confirm.fill('site/web');
    expect(await button.isDisabled(), 'another project').to.equal(true);
    await confirm.fill('site/doomed');
    expect(await button.isDisabled(), 'typed exactly').to.equal(false);
    await button.click();
    await page.waitForURL('**/projects?deleted=*', { timeout: 60_000 });
    await see(page, 'Deleted site/doomed and all its data.');
    const { projects } = (await seeded.api.get('/v1/projects')).body as { projects: Array<{ project: string }> };
    expect(projects.map((p) => p.project))
      .to.include(seeded.project)
      .and.not.to.include(doomed.project);
    expect(await page.locator('#project-picker option').allTextContents()).not.to.include(
      `site/doomed (${seeded.origin})`,
    );
    expect(await page.getByRole('listitem').filter({ hasText: 'site/doomed' }).count()).to.equal(0);
    await rig.finish('delete-project');
  });

  it('deletes the account once its email is typed, and signs out at once', async () => {
    const sent: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'DELETE') sent.push(r.url());
    });
    await page.goto(`${spoor.url}/settings`);
    const zone = page.getByRole('region', { name: 'Danger zone' });
    const confirm = zone.getByLabel(`To confirm, type your account’s email: ${seeded.email}`);
    const button = zone.getByRole('button', { name: 'Delete account' });
    expect(await button.isDisabled(), 'before typing').to.equal(true);
    await confirm.fill(seeded.email.toUpperCase());
    expect(await button.isDisabled(), 'another spelling').to.equal(true);
    await confirm.fill(seeded.email);
    expect(await button.isDisabled(), 'typed exactly').to.equal(false);
    await rig.tab.screenshot('delete-account');
    await button.click();
    await page.waitForURL('**/login?notice=*');
    await see(page, 'Your account is being deleted. You are signed out.');
    expect(sent).to.have.length(1);
    expect(new URL(sent[0]!).searchParams.get('confirm')).to.equal(seeded.email);
    expect(await page.evaluate(() => (globalThis as any).localStorage.getItem('spoor.token'))).to.equal(null);
    // The server did it: the account's token is refused once the job ran, and its email is free.
    await waitFor(
      () => seeded.api.get('/v1/users/account'),
      (r) => r.status === 401,
      60_000,
      'the account deletion',
    );
    expect(await spoor.store.accounts.findByEmail(seeded.email)).to.equal(null);
    expect(tab.errors).to.deep.equal([]);
  });
});
