// Issue 45, item 7, end to end on both modes: an owner's and its members' changes — invitations,
// role changes, rules, a webhook and a channel, the retention setting, an erasure, a share link —
// are listed by GET /v1/projects/audit with their actor and before and after, newest first and
// paged; owners and admins read it, an editor or viewer gets 403, anyone else 404, no credentials
// 401, bad parameters 422; and no secret reaches an entry.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { requireEngine } from '@spoor/testkit';
import { ApiClient, signUp } from '../support/api-client.js';
import { MODES } from '../support/engine-env.js';
import { startSpoor, type Harness } from '../support/spoor-harness.js';

interface Entry {
  entry_id: string;
  at: number;
  actor: { account_id: string; email: string | null; via: string; api_key_name: string | null };
  action: string;
  target: { kind: string; id: string; name: string | null };
  changes: Record<string, { before: unknown; after: unknown }>;
}

for (const mode of MODES) {
  describe(`Audit trail (issue 45, item 7): ${mode}`, function () {
    this.timeout(180_000);
    let spoor: Harness;
    const scope = { origin: `http://localhost:5471`, project: `audit/web-${randomUUID().slice(0, 6)}` };
    const email = (what: string) => `${what}-${randomUUID().slice(0, 8)}@example.com`;
    const idOf = async (c: ApiClient) => (await c.get('/v1/users/account')).body.account_id as string;
    let owner: ApiClient;
    let admin: ApiClient;
    let editor: ApiClient;
    let viewer: ApiClient;
    let ownerEmail: string;
    let editorEmail: string;
    let editorId: string;
    /** Every secret handed out along the way: none may appear in the trail. */
    const secrets: string[] = [];

    async function join(role: 'admin' | 'editor' | 'viewer', address: string): Promise<ApiClient> {
      const invited = await owner.post('/v1/projects/invitations', { ...scope, email: address, role });
      expect(invited.status, invited.text).to.equal(200);
      const token = new URL(invited.body.link as string).hash.replace(/^#token=/, '');
      secrets.push(token);
      const member = await signUp(spoor.url, address);
      expect((await member.post('/v1/invitations/accept', { token })).status).to.equal(200);
      return member;
    }

    async function trail(query: Record<string, string | number> = {}, as = owner): Promise<Entry[]> {
      const res = await as.get('/v1/projects/audit', { ...scope, limit: 500, ...query });
      expect(res.status, res.text).to.equal(200);
      return res.body.entries as Entry[];
    }

    before(async function () {
      const started = await startSpoor(mode, { SPOOR_WEBHOOK_ALLOW_PRIVATE: 'true', SPOOR_RATE_SIGNUP_IP: '0' });
      requireEngine(this, started ? 'ok' : null, `engines for ${mode} mode`);
      spoor = started!;
      ownerEmail = email('owner');
      owner = await signUp(spoor.url, ownerEmail);
      expect((await owner.post('/v1/users/projects', scope)).status).to.equal(200);
      admin = await join('admin', email('admin'));
      editorEmail = email('editor');
      editor = await join('editor', editorEmail);
      viewer = await join('viewer', email('viewer'));
      editorId = await idOf(editor);

      // A role change there and back, one that changes nothing (no entry).
      for (const role of ['viewer', 'editor', 'editor']) {
        const res = await owner.call('PATCH', `/v1/projects/members/${editorId}`, scope, { role });
        expect(res.status, res.text).to.equal(200);
      }
      // The editor writes a rule, the owner changes its label, then disables it.
      const rule = { ...scope, rule_id: 'busy', logic: { '>=': [{ var: 'event_count' }, 5] }, label: 'Busy' };
      expect((await editor.post('/v1/rules', rule)).status).to.equal(200);
      expect((await owner.post('/v1/rules', { ...rule, label: 'Very busy' })).status).to.equal(200);
      expect((await owner.delete('/v1/rules/busy', scope)).status).to.equal(200);
      // A webhook through the owner's API key; a chat channel whose URL carries its token.
      const key = await owner.post('/v1/users/apikey', { api_key_name: 'ci' });
      expect(key.status, key.text).to.equal(200);
      secrets.push(key.body.api_key as string);
      const webhook = await owner.withToken(key.body.api_key as string).post('/v1/webhooks', {
        ...scope,
        url: 'http://127.0.0.1:9/hooks/PATHSECRET?token=QUERYSECRET',
        events: ['rule.matched'],
      });
      expect(webhook.status, webhook.text).to.equal(200);
      secrets.push(webhook.body.secret as string, 'PATHSECRET', 'QUERYSECRET');
      const channel = await admin.post('/v1/channels', {
        ...scope,
        name: 'ops',
        kind: 'slack',
        url: 'http://127.0.0.1:9/services/T000/B000/CHANNELSECRET',
      });
      expect(channel.status, channel.text).to.equal(200);
      secrets.push('CHANNELSECRET');
      // Retention, an erasure by session, a share link behind a password.
      const patched = await owner.call('PATCH', '/v1/projects', scope, { retention_days: 30 });
      expect(patched.status, patched.text).to.equal(200);
      const erasure = await admin.post('/v1/erasures', { ...scope, session_id: 'ERASEDSESSION' });
      expect(erasure.status, erasure.text).to.equal(200);
      secrets.push('ERASEDSESSION');
      const share = await owner.post('/v1/projects/shares', { ...scope, label: 'board', password: 'SHAREPASSWORD1' });
      expect(share.status, share.text).to.equal(200);
      secrets.push(share.body.token as string, 'SHAREPASSWORD1');
    });

    after(async () => {
      await spoor?.stop();
    });

    it('lists each change, newest first, with its actor and before and after', async () => {
      const entries = await trail();
      expect(entries.map((e) => e.action)).to.deep.equal([
        'share_link.created',
        'data.erasure_requested',
        'project.settings_changed',
        'channel.created',
        'webhook.created',
        'rule.disabled',
        'rule.updated',
        'rule.created',
        'member.role_changed',
        'member.role_changed',
        'invitation.accepted',
        'invitation.created',
        'invitation.accepted',
        'invitation.created',
        'invitation.accepted',
        'invitation.created',
        'project.created',
      ]);
      const ats = entries.map((e) => e.at);
      expect(ats).to.deep.equal([...ats].sort((a, b) => b - a));
      const find = (action: string) => entries.filter((e) => e.action === action);
      const ownerActor = { account_id: await idOf(owner), email: ownerEmail, via: 'token', api_key_name: null };

      const [back, down] = find('member.role_changed');
      expect(down).to.deep.include({
        actor: ownerActor,
        target: { kind: 'member', id: editorId, name: editorEmail },
        changes: { role: { before: 'editor', after: 'viewer' } },
      });
      expect(back!.changes).to.deep.equal({ role: { before: 'viewer', after: 'editor' } });
      const accepted = find('invitation.accepted').find((e) => e.actor.account_id === editorId)!;
      expect(accepted.changes).to.deep.equal({ role: { before: null, after: 'editor' } });
      expect(find('invitation.created').map((e) => e.target.name)).to.include(editorEmail);

      const created = find('rule.created')[0]!;
      expect(created.actor.account_id).to.equal(editorId);
      expect(created.target).to.deep.equal({ kind: 'rule', id: 'busy', name: 'Busy' });
      expect(created.changes['logic']).to.deep.equal({ before: null, after: { '>=': [{ var: 'event_count' }, 5] } });
      expect(find('rule.updated')[0]!.changes).to.deep.equal({
        version: { before: 1, after: 2 },
        label: { before: 'Busy', after: 'Very busy' },
      });
      expect(find('rule.disabled')[0]!.changes).to.deep.equal({
        version: { before: 2, after: 3 },
        enabled: { before: true, after: false },
      });

      const webhook = find('webhook.created')[0]!;
      expect(webhook.actor).to.deep.equal({ ...ownerActor, via: 'api_key', api_key_name: 'ci' });
      expect(webhook.changes['url']).to.deep.equal({ before: null, after: 'http://127.0.0.1:9' });
      expect(find('channel.created')[0]!.changes['url']).to.deep.equal({ before: null, after: 'http://127.0.0.1:9' });

      expect(find('project.settings_changed')[0]!.changes).to.deep.equal({
        retention_days: { before: null, after: 30 },
      });
      expect(find('data.erasure_requested')[0]!.changes).to.deep.equal({ by: { before: null, after: 'session_id' } });
      expect(find('share_link.created')[0]!.changes).to.deep.equal({
        label: { before: null, after: 'board' },
        has_password: { before: null, after: true },
      });
    });

    it('keeps no secret: tokens, passwords, webhook secrets, URL paths and queries, erased identifiers', async () => {
      const text = JSON.stringify(await trail());
      for (const secret of secrets) expect(text, secret).not.to.include(secret);
    });

    it('filters by action or category, by actor (id or email) and by window, and pages with next_cursor', async () => {
      expect((await trail({ action: 'rule' })).map((e) => e.action)).to.deep.equal([
        'rule.disabled',
        'rule.updated',
        'rule.created',
      ]);
      expect((await trail({ action: 'member.role_changed' })).length).to.equal(2);
      const byEditor = await trail({ actor: editorEmail.toUpperCase() });
      expect(byEditor.map((e) => e.action)).to.deep.equal(['rule.created', 'invitation.accepted']);
      expect((await trail({ actor: editorId })).length).to.equal(2);
      const all = await trail();
      const cut = all.find((e) => e.action === 'webhook.created')!.at;
      expect((await trail({ window_start: cut + 1 })).every((e) => e.at > cut)).to.equal(true);
      expect((await trail({ window_end: cut })).every((e) => e.at < cut)).to.equal(true);

      const paged: Entry[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 20; page++) {
        const res = await owner.get('/v1/projects/audit', { ...scope, limit: 4, cursor });
        expect(res.status, res.text).to.equal(200);
        expect(res.body.entries.length).to.be.at.most(4);
        paged.push(...(res.body.entries as Entry[]));
        cursor = res.body.next_cursor ?? undefined;
        if (!cursor) break;
      }
      expect(paged.map((e) => e.entry_id)).to.deep.equal(all.map((e) => e.entry_id));
    });

    it('is read by owners and admins; an editor or viewer gets 403, another account 404, no credentials 401', async () => {
      expect((await trail({}, admin)).length).to.be.greaterThan(10);
      for (const member of [editor, viewer]) {
        const res = await member.get('/v1/projects/audit', scope);
        expect(res.status, res.text).to.equal(403);
        expect(res.body.detail).to.match(/admin role/);
      }
      const stranger = await signUp(spoor.url, email('stranger'));
      const hidden = await stranger.get('/v1/projects/audit', scope);
      expect(hidden.status).to.equal(404);
      expect(hidden.body).to.deep.equal({ detail: 'Project not found' });
      const anonymous = await new ApiClient(spoor.url).get('/v1/projects/audit', scope);
      expect(anonymous.status).to.equal(401);
    });

    it('answers 422 for bad parameters', async () => {
      const cases: Array<[Record<string, string>, string]> = [
        [{ action: 'member.exploded' }, 'action'],
        [{ action: 'nothing' }, 'action'],
        [{ limit: '0' }, 'limit'],
        [{ limit: '501' }, 'limit'],
        [{ limit: 'ten' }, 'limit'],
        [{ window_start: 'yesterday' }, 'window_start'],
        [{ cursor: 'not a cursor!' }, 'cursor'],
        [{ cursor: Buffer.from('nonsense').toString('base64url') }, 'cursor'],
      ];
      for (const [query, field] of cases) {
        const res = await owner.get('/v1/projects/audit', { ...scope, ...query });
        expect(res.status, JSON.stringify(query)).to.equal(422);
        expect(res.body.detail[0].loc, JSON.stringify(query)).to.deep.equal(['query', field]);
      }
      const missing = await owner.get('/v1/projects/audit', { origin: scope.origin });
      expect(missing.status).to.equal(422);
      expect(missing.body.detail[0].loc).to.deep.equal(['query', 'project']);
    });
  });
}
