import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { startSmtpCapture, type SmtpCapture } from '@spoor/testkit';
import { signUp, type ApiClient } from '../support/api-client.js';
import { waitFor, type Harness } from '../support/spoor-harness.js';
import { go, openDashboard, see, type DashboardTab } from './dashboard-browser.js';
import { startDashboardRig, type DashboardRig } from './dashboard-rig.js';

/**
 * Teams in the dashboard (issue 45), embedded mode only (the members' store is tested on every
 * engine by test/e2e/members.test.ts): an owner invites an address as editor in Settings, the
 * mail reaches a real SMTP server, a second browser opens the mail's link, signs up on the accept
 * page and accepts, landing on the project; the owner sees the editor, makes it viewer, cannot
 * leave as the last owner; the member leaves.
 */
describe('Dashboard in Chromium, members and invitations: embedded', function () {
  this.timeout(150_000);
  let smtp: SmtpCapture;
  let rig: DashboardRig;
  let spoor: Harness;
  let tab: DashboardTab;
  let page: Page;
  let guestTab: DashboardTab;
  let owner: ApiClient;
  const id = Math.random().toString(36).slice(2, 8);
  const ownerEmail = `owner-${id}@example.com`;
  const guestEmail = `guest-${id}@example.com`;
  const project = 'team/web';
  let origin: string;
  let link: string;

  before(async function () {
    smtp = await startSmtpCapture();
    rig = await startDashboardRig(this, 'embedded', {
      SPOOR_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      SPOOR_RATE_SIGNUP_IP: '0',
    });
    ({ spoor, tab, page } = rig);
    owner = await signUp(spoor.url, ownerEmail);
    origin = `http://localhost:${new URL(spoor.url).port}`;
    expect((await owner.post('/v1/users/projects', { origin, project })).status).to.equal(200);
  });
  after(async () => {
    await rig?.stop();
    await smtp?.close();
  });

  const members = async () =>
    (
      (await owner.get('/v1/projects/members', { origin, project })).body.members as Array<{
        email: string;
        role: string;
      }>
    ).map((m) => [m.email, m.role]);

  it('the owner sees its role and invites an address as editor in Settings; the mail carries the link', async () => {
    await page.goto(`${spoor.url}/login`);
    await page.getByLabel('Email').fill(ownerEmail);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: `Overview of ${project}` }).waitFor();
    expect(await page.locator('#project-role').textContent()).to.equal('owner');
    await go(page, 'Projects');
    await see(page, 'your role: owner');
    await go(page, 'Settings');
    const section = page.getByRole('region', { name: 'Members' });
    await section.getByText(ownerEmail).waitFor();
    await section.getByText('(you)').waitFor();
    await see(page, 'No pending invitation.');
    await page.getByLabel('Invite by email').fill(guestEmail);
    await page.getByLabel('Role', { exact: true }).selectOption('editor');
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    await see(page, `Invitation mailed to ${guestEmail} (editor).`);
    await page.getByRole('list', { name: 'Pending invitations' }).getByText(guestEmail).waitFor();

    const mail = await waitFor(
      async () => smtp.received.find((m) => m.rcptTo.includes(guestEmail)),
      (m) => m !== undefined,
      10_000,
      'the invitation mail',
    );
    const body = mail!.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    link = /https?:\/\/[^\s"<>]+\/invitations\/accept#token=[A-Za-z0-9_-]+/.exec(body)![0];
    await rig.finish('members-invited');
  });

  it('another browser opens the link, signs up there, accepts and lands on the project; the token leaves the URL', async () => {
    guestTab = await openDashboard(rig.browser, 'embedded');
    const guest = guestTab.page;
    await guest.goto(link);
    await see(guest, 'Sign in, or create an account, to accept the invitation');
    expect(guest.url()).to.not.include('token');
    expect(new URL(guest.url()).pathname).to.equal('/invitations/accept');
    await guest.getByLabel('Email').fill(guestEmail);
    await guest.getByLabel('Password').fill('correct horse battery');
    await guest.getByRole('button', { name: 'Create account' }).click();
    await guest.getByRole('button', { name: 'Accept invitation' }).waitFor();
    await see(guest, guestEmail);
    expect(guest.url()).to.not.include('token');
    await guestTab.screenshot('members-accept');
    await guest.getByRole('button', { name: 'Accept invitation' }).click();
    await guest.getByRole('heading', { name: `Overview of ${project}` }).waitFor();
    expect(await guest.locator('#project-role').textContent()).to.equal('editor');
    expect(guest.url()).to.not.include('token');
    expect(await members()).to.deep.equal([
      [ownerEmail, 'owner'],
      [guestEmail, 'editor'],
    ]);

    // The same link again: used, so the API's 404 in words, and nothing kept.
    await guest.goto(link);
    guestTab.expectFailure({ status: 404, path: '/v1/invitations/accept' });
    await guest.getByRole('button', { name: 'Accept invitation' }).click();
    await see(guest, /unknown, expired, revoked or already used/);
    expect(guest.url()).to.not.include('token');
    expect(guestTab.errors).to.deep.equal([]);
  });

  it('the owner sees the editor, makes it viewer, and as the last owner is refused leaving', async () => {
    await page.reload();
    const section = page.getByRole('region', { name: 'Members' });
    const role = section.getByLabel(`Role of ${guestEmail}`);
    await role.waitFor();
    expect(await role.inputValue()).to.equal('editor');
    await see(page, 'No pending invitation.');
    await role.selectOption('viewer');
    await see(page, `${guestEmail} is now viewer.`);
    expect(await members()).to.deep.equal([
      [ownerEmail, 'owner'],
      [guestEmail, 'viewer'],
    ]);
    // A viewer exports only when granted: the owner ticks it.
    await section.getByLabel('may export').check();
    await see(page, `${guestEmail} may now export.`);
    const exportsOf = async () =>
      (await owner.get('/v1/projects/members', { origin, project })).body.members.find(
        (m: { email: string }) => m.email === guestEmail,
      ).exports;
    expect(await exportsOf()).to.equal(true);
    tab.expectFailure({ status: 409, path: '/v1/projects/leave' });
    await page.getByRole('button', { name: 'Leave project' }).click();
    await see(page, /the last owner cannot leave/);
    await rig.finish('members-owner');
  });

  it('the owner reads the Audit page: the role change and the invitation, filtered by category and by person in the URL', async () => {
    await go(page, 'Audit');
    const table = page.getByRole('table', { name: 'Audit trail' });
    const roleRow = table.getByRole('row').filter({ hasText: 'member.role_changed' }).first();
    await roleRow.waitFor();
    expect(await roleRow.textContent())
      .to.include(ownerEmail)
      .and.include(guestEmail)
      .and.include('editor → viewer');
    await table.getByRole('row').filter({ hasText: 'invitation.accepted' }).first().waitFor();
    expect(await table.getByRole('row').filter({ hasText: 'member.exports_changed' }).first().textContent()).to.include(
      'false → true',
    );
    await page.getByLabel('Category').selectOption('member');
    await page.waitForURL((u) => u.search === '?action=member');
    await table.getByRole('row').filter({ hasText: 'invitation.accepted' }).first().waitFor({ state: 'detached' });
    await table.locator('tbody tr').first().waitFor();
    const actions = await table.locator('tbody tr td:nth-child(3)').allTextContents();
    expect(actions.length).to.be.greaterThan(0);
    expect(actions.every((a) => a.startsWith('member.'))).to.equal(true, actions.join(', '));
    await roleRow.getByRole('link', { name: ownerEmail }).click();
    await page.waitForURL(
      (u) => u.searchParams.get('actor') === ownerEmail && u.searchParams.get('action') === 'member',
    );
    await see(page, `By ${ownerEmail}`);
    // The link reproduces the view; the chip's × removes the person, keeping the category.
    await page.reload();
    await see(page, `By ${ownerEmail}`);
    expect(await page.getByLabel('Category').inputValue()).to.equal('member');
    await page.getByRole('button', { name: `Remove filter by ${ownerEmail}` }).click();
    await page.waitForURL((u) => u.search === '?action=member');
    await rig.finish('members-audit');
  });

  it('the member sees no management controls, leaves, and is back on its projects', async () => {
    const guest = guestTab.page;
    // Settings' share links ask GET /v1/projects/shares, an admin's, and say so on its 403.
    guestTab.expectFailure({ status: 403, path: '/v1/projects/shares' });
    await guest.goto(`${spoor.url}/settings`);
    const section = guest.getByRole('region', { name: 'Members' });
    await section.getByText('Your role: viewer.').waitFor();
    expect(await guest.getByLabel('Invite by email').count()).to.equal(0);
    expect(await section.locator('select').count()).to.equal(0);
    expect(await section.getByRole('button', { name: /^Remove/ }).count()).to.equal(0);
    expect(await guest.getByRole('button', { name: 'Transfer ownership' }).count()).to.equal(0);
    // The Audit page is the owners' and admins': a viewer is told so.
    guestTab.expectFailure({ status: 403, path: '/v1/projects/audit' });
    await go(guest, 'Audit');
    await see(guest, /Only the project's owners and admins read its audit trail/);
    guestTab.expectFailure({ status: 403, path: '/v1/projects/shares' });
    await go(guest, 'Settings');
    await guest.getByRole('button', { name: 'Leave project' }).click();
    await see(guest, `You left ${project}.`);
    expect(new URL(guest.url()).pathname).to.equal('/projects');
    await see(guest, 'No project yet: register your site below.');
    expect(await members()).to.deep.equal([[ownerEmail, 'owner']]);
    expect(guestTab.errors).to.deep.equal([]);
    await guestTab.close();
  });
});

/** Without SMTP the invitation is made all the same and its link shown once, to pass on by hand. */
describe('Dashboard in Chromium, an invitation without mail: embedded', function () {
  this.timeout(120_000);
  let rig: DashboardRig;
  let page: Page;

  before(async function () {
    rig = await startDashboardRig(this, 'embedded', { SPOOR_RATE_SIGNUP_IP: '0' });
    page = rig.page;
  });
  after(async () => rig?.stop());

  it('shows the link with a copy button; the link works; a pending invitation is revoked', async () => {
    const { spoor, tab } = rig;
    const ownerEmail = `owner-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const owner = await signUp(spoor.url, ownerEmail);
    const scope = { origin: `http://localhost:${new URL(spoor.url).port}`, project: 'team/site' };
    expect((await owner.post('/v1/users/projects', scope)).status).to.equal(200);
    await tab.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: spoor.url });
    await page.goto(`${spoor.url}/login`);
    await page.getByLabel('Email').fill(ownerEmail);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: `Overview of ${scope.project}` }).waitFor();
    await go(page, 'Settings');

    for (const [address, role] of [
      ['first@example.com', 'viewer'],
      ['second@example.com', 'admin'],
    ] as const) {
      await page.getByLabel('Invite by email').fill(address);
      await page.getByLabel('Role', { exact: true }).selectOption(role);
      await page.getByRole('button', { name: 'Invite', exact: true }).click();
      await see(page, `No mail was sent: pass this link on to ${address} yourself.`);
    }
    const box = page.getByLabel('Invitation link for second@example.com');
    const link = await box.inputValue();
    expect(link).to.match(/\/invitations\/accept#token=[\w-]+$/);
    await page.getByRole('button', { name: 'Copy link' }).click();
    await see(page, 'Copied.');
    expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).to.equal(link);
    await rig.finish('members-link');

    const pending = page.getByRole('list', { name: 'Pending invitations' });
    await pending.getByText('first@example.com').waitFor();
    await page.getByRole('button', { name: 'Revoke the invitation of first@example.com' }).click();
    await see(page, 'Revoked the invitation of first@example.com.');
    expect(await pending.getByText('first@example.com').count()).to.equal(0);

    const someone = await signUp(spoor.url);
    const accepted = await someone.post('/v1/invitations/accept', { token: link.split('#token=')[1] });
    expect(accepted.body).to.deep.equal({ ...scope, role: 'admin' });
    await page.reload();
    await page
      .getByRole('region', { name: 'Members' })
      .getByLabel(/^Role of u\w+@example.com$/)
      .waitFor();
    await see(page, 'No pending invitation.');
    await rig.finish('members-after-link');
  });
});
