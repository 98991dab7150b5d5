// Issue 45, item 3, through the HTTP API in both modes: public read-only share links. An admin
// makes, lists and revokes them (a viewer may not); anyone holding the link reads the same
// aggregates the stats query answers the owner, without credentials, never a payload property;
// a password-protected link answers its stats only with the grant its password unlocks, and
// guessing the password is rate limited per address; a revoked link, or one of a deleted
// project, answers 404.
import { expect } from 'chai';
import { requireEngine } from '@spoor/testkit';
import { ApiClient, signUp, type ApiResponse } from '../support/api-client.js';
import { MODES } from '../support/engine-env.js';
import { postAsBrowser, startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';

const UNLOCKS = 4;

for (const mode of MODES) {
  describe(`Share links over HTTP (issue 45): ${mode}`, function () {
    this.timeout(240_000);
    let spoor: Harness;
    let owner: ApiClient;
    let admin: ApiClient;
    let viewer: ApiClient;
    let anonymous: ApiClient;
    const origin = 'http://localhost:4245';
    const scope = { origin, project: 'shares/web' };
    const t0 = Date.now() - 20 * 60_000;
    const range = { start: t0 - 60_000, end: Date.now() + 60_000 };

    const tokenOf = (res: ApiResponse) => {
      expect(res.status, res.text).to.equal(200);
      return res.body.token as string;
    };
    const shared = (token: string, body: Record<string, unknown>, grant?: string) =>
      anonymous.call('POST', `/v1/shared/${token}/stats`, {}, body, grant ? { authorization: `Bearer ${grant}` } : {});

    async function member(role: 'admin' | 'viewer'): Promise<ApiClient> {
      const email = `${role}-${Date.now().toString(36)}@example.com`;
      const invited = await owner.post('/v1/projects/invitations', { ...scope, email, role });
      expect(invited.status, invited.text).to.equal(200);
      const client = await signUp(spoor.url, email);
      const token = new URL(invited.body.link as string).hash.replace(/^#token=/, '');
      expect((await client.post('/v1/invitations/accept', { token })).status).to.equal(200);
      return client;
    }

    before(async function () {
      const started = await startSpoor(mode, { SPOOR_RATE_SHARE_UNLOCK: String(UNLOCKS) });
      requireEngine(this, started ? 'ok' : null, `engines for ${mode} mode`);
      spoor = started!;
      anonymous = new ApiClient(spoor.url);
      owner = await signUp(spoor.url);
      expect((await owner.post('/v1/users/projects', scope)).status).to.equal(200);
      admin = await member('admin');
      viewer = await member('viewer');
      const events = ['a', 'b', 'c'].flatMap((session, s) =>
        ['pageview', 'pageview', s === 0 ? 'signup' : 'click'].slice(0, s + 1).map((action, i) => ({
          project: scope.project,
          action,
          timestamp: t0 + s * 60_000 + i * 1000,
          session_id: session,
          url: `${origin}/p${i}`,
          referrer: i === 0 ? 'https://news.example.org/post' : undefined,
          payload: { plan: s === 0 ? 'team' : 'free' },
        })),
      );
      expect((await postAsBrowser(spoor.url, origin, events)).status).to.equal(200);
      await waitFor(
        () => owner.post('/v1/stats/query', { ...scope, metrics: ['events', 'sessions'], date_range: range }),
        (r) => r.body?.results?.[0]?.metrics?.[0] === 6 && r.body.results[0].metrics[1] === 3,
        60_000,
        'six events in three sessions',
      );
    });

    after(async function () {
      await spoor?.stop();
    });

    it('is made and listed by an admin, never by a viewer; the list holds no token', async function () {
      const refused = await viewer.post('/v1/projects/shares', { ...scope, label: 'nope' });
      expect(refused.status).to.equal(403);
      expect(refused.body.detail).to.equal('This needs the admin role on the project; yours is viewer');
      expect((await viewer.get('/v1/projects/shares', scope)).status).to.equal(403);
      const made = await admin.post('/v1/projects/shares', { ...scope, label: 'For the board' });
      expect(made.status, made.text).to.equal(200);
      expect(made.body).to.include({ label: 'For the board', has_password: false });
      expect(made.body.link).to.equal(`${spoor.url.replace(/\/$/, '')}/share/${made.body.token}`);
      const list = await owner.get('/v1/projects/shares', scope);
      expect(list.status).to.equal(200);
      const listed = (list.body.shares as Array<Record<string, unknown>>).find(
        (s) => s.share_id === made.body.share_id,
      );
      expect(listed).to.deep.equal({
        share_id: made.body.share_id,
        label: 'For the board',
        has_password: false,
        created_by: made.body.created_by,
        created_at: made.body.created_at,
      });
      expect(list.text).not.to.contain(made.body.token);
      const stranger = await signUp(spoor.url);
      expect((await stranger.get('/v1/projects/shares', scope)).status).to.equal(404);
    });

    it('answers without credentials the same aggregates the stats query answers the owner', async function () {
      const token = tokenOf(await owner.post('/v1/projects/shares', scope));
      const info = await anonymous.get(`/v1/shared/${token}`);
      expect(info.status, info.text).to.equal(200);
      expect(info.body).to.deep.equal({ ...scope, label: '', has_password: false });
      for (const body of [
        { metrics: ['visitors', 'sessions', 'events', 'bounce_rate'], compare: 'previous_period', date_range: range },
        { metrics: ['events'], dimensions: ['time'], date_range: '24h' },
        { metrics: ['pageviews'], dimensions: ['page'], date_range: range, limit: 5 },
        { metrics: ['sessions'], dimensions: ['referrer'], date_range: range },
        {
          metrics: ['sessions', 'conversions'],
          goal: { action: 'signup' },
          filters: [{ dimension: 'page', op: 'is', values: ['/p1'] }],
          date_range: range,
        },
      ]) {
        const mine = await owner.post('/v1/stats/query', { ...scope, ...body });
        const theirs = await shared(token, body);
        expect(theirs.status, theirs.text).to.equal(200);
        expect(theirs.body).to.deep.equal(mine.body);
      }
    });

    it('refuses payload properties and a project in the body with 422 and loc', async function () {
      const token = tokenOf(await owner.post('/v1/projects/shares', scope));
      const cases: Array<[Record<string, unknown>, Array<string | number>]> = [
        [{ metrics: ['events'], dimensions: ['payload:plan'] }, ['body', 'dimensions', 0]],
        [
          { metrics: ['events'], filters: [{ dimension: 'payload:plan', op: 'is', values: ['team'] }] },
          ['body', 'filters', 0, 'dimension'],
        ],
        [
          {
            metrics: ['events'],
            filters: [
              {
                or: [
                  { dimension: 'page', op: 'is', values: ['/'] },
                  { dimension: 'payload:plan', op: 'is', values: ['x'] },
                ],
              },
            ],
          },
          ['body', 'filters', 0, 'or', 1, 'dimension'],
        ],
        [{ metrics: [] }, ['body', 'metrics']],
        [{ ...scope, metrics: ['events'] }, ['body']],
      ];
      for (const [body, loc] of cases) {
        const res = await shared(token, body);
        expect(res.status, res.text).to.equal(422);
        expect(
          res.body.detail.map((d: { loc: unknown[] }) => d.loc),
          JSON.stringify(body),
        ).to.deep.include(loc);
      }
      const bad = await owner.post('/v1/projects/shares', { ...scope, password: 'short' });
      expect(bad.status).to.equal(422);
      expect(bad.body.detail[0].loc).to.deep.equal(['body', 'password']);
    });

    it('asks for the password, answers a grant for the right one, and limits guesses per address', async function () {
      const made = await admin.post('/v1/projects/shares', { ...scope, label: 'locked', password: 'open sesame 1' });
      const token = tokenOf(made);
      expect(made.body.has_password).to.equal(true);
      expect((await anonymous.get(`/v1/shared/${token}`)).body.has_password).to.equal(true);
      const body = { metrics: ['events'], date_range: range };
      const locked = await shared(token, body);
      expect(locked.status).to.equal(401);
      expect(locked.body.detail).to.contain('needs its password');
      const wrong = await anonymous.post(`/v1/shared/${token}/unlock`, { password: 'open sesame 2' });
      expect(wrong.status).to.equal(401);
      expect(wrong.body).to.deep.equal({ detail: 'Wrong password for this share link' });
      const right = await anonymous.post(`/v1/shared/${token}/unlock`, { password: 'open sesame 1' });
      expect(right.status, right.text).to.equal(200);
      expect(right.body.expires_at).to.be.greaterThan(Date.now() + 11 * 3_600_000);
      const grant = right.body.grant as string;
      const open = await shared(token, body, grant);
      expect(open.status, open.text).to.equal(200);
      expect(open.body.results[0].metrics).to.deep.equal([6]);
      const forged = `${grant.slice(0, -2)}${grant.endsWith('AA') ? 'BB' : 'AA'}`;
      expect((await shared(token, body, forged)).status).to.equal(401);
      // A grant opens only its own link's password.
      const other = tokenOf(await admin.post('/v1/projects/shares', { ...scope, password: 'another one!' }));
      expect((await shared(other, body, grant)).status).to.equal(401);
      // UNLOCKS attempts an hour per address, right or wrong: two so far.
      for (let i = 2; i < UNLOCKS; i++)
        expect((await anonymous.post(`/v1/shared/${token}/unlock`, { password: `guess ${i}` })).status).to.equal(401);
      const limited = await anonymous.post(`/v1/shared/${token}/unlock`, { password: 'open sesame 1' });
      expect(limited.status).to.equal(429);
      expect(limited.headers.get('retry-after')).to.match(/^\d+$/);
      expect(limited.body).to.deep.equal({ detail: 'Too many requests' });
      const metrics = await (await fetch(new URL('/metrics', spoor.url))).text();
      expect(metrics).to.match(/spoor_service_counter\{[^}]*counter="rate_limited_share_unlock_ip"[^}]*\} [1-9]/);
      // The grant already given still opens the stats.
      expect((await shared(token, body, grant)).status).to.equal(200);
    });

    it('answers 404 to an unknown or revoked link; only an admin revokes', async function () {
      const made = await owner.post('/v1/projects/shares', { ...scope, label: 'short-lived' });
      const token = tokenOf(made);
      const path = `/v1/projects/shares/${made.body.share_id as string}`;
      expect((await viewer.delete(path, scope)).status).to.equal(403);
      const revoked = await admin.delete(path, scope);
      expect(revoked.status, revoked.text).to.equal(200);
      expect(revoked.body.share_id).to.equal(made.body.share_id);
      for (const res of [
        await anonymous.get(`/v1/shared/${token}`),
        await shared(token, { metrics: ['events'] }),
        await anonymous.get('/v1/shared/no-such-token'),
      ]) {
        expect(res.status).to.equal(404);
        expect(res.body).to.deep.equal({ detail: 'This share link is unknown or was revoked' });
      }
      const again = await admin.delete(path, scope);
      expect(again.status).to.equal(404);
      expect(again.body).to.deep.equal({ detail: 'Share link not found' });
      const listed = (await owner.get('/v1/projects/shares', scope)).body.shares as Array<{ share_id: string }>;
      expect(listed.map((s) => s.share_id)).not.to.include(made.body.share_id);
    });

    it("answers 404 once the link's project is deleted", async function () {
      const doomed = { origin, project: 'shares/doomed' };
      expect((await owner.post('/v1/users/projects', doomed)).status).to.equal(200);
      const token = tokenOf(await owner.post('/v1/projects/shares', doomed));
      expect((await anonymous.get(`/v1/shared/${token}`)).status).to.equal(200);
      const deleted = await owner.delete('/v1/projects', { ...doomed, confirm: doomed.project });
      expect(deleted.status, deleted.text).to.equal(200);
      await waitFor(
        () => anonymous.get(`/v1/shared/${token}`),
        (r) => r.status === 404,
        60_000,
        'the link gone with its project',
      );
      expect((await shared(token, { metrics: ['events'] })).status).to.equal(404);
    });
  });
}
