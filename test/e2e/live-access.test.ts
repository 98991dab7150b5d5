// Issue 42, items 3 and 4, end to end in both modes: an open GET /v1/live stream ends — an `end`
// event with what a new request would be answered, then the close — within 10 s of its
// credential's revocation (logout, API key deletion) or its project's or account's deletion,
// while streams of the same account whose access holds keep going; and open streams are capped
// per account and per process (429 with the catalogue's body past either cap, a slot freed by
// closing a stream).
import { expect } from 'chai';
import { readEventStream } from '@spoor/client';
import { requireEngine } from '@spoor/testkit';
import { ApiClient, signUp } from '../support/api-client.js';
import { MODES } from '../support/engine-env.js';
import { startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';

const PASSWORD = 'correct horse battery';
/** Issue 42's bound: a stream ends within 10 s of its access ending. */
const END_WITHIN_MS = 10_000;

interface Stream {
  status: number;
  body: any;
  headers: Headers;
  snapshots: number;
  /** The `end` event's data, once the server sent it. */
  endedWith: { status: number; detail: string } | null;
  /** Resolves when the server ended the stream (or close() did). */
  ended: Promise<void>;
  isEnded: boolean;
  close(): void;
}

async function openStream(baseUrl: string, token: string, scope: Record<string, string>): Promise<Stream> {
  const url = new URL('/v1/live', baseUrl);
  for (const [k, v] of Object.entries(scope)) url.searchParams.set(k, v);
  const abort = new AbortController();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: abort.signal });
  const stream: Stream = {
    status: res.status,
    body: null,
    headers: res.headers,
    snapshots: 0,
    endedWith: null,
    ended: Promise.resolve(),
    isEnded: false,
    close: () => abort.abort(),
  };
  if (res.status !== 200 || !res.body) {
    stream.body = JSON.parse(await res.text());
    stream.isEnded = true;
    return stream;
  }
  const body = res.body;
  stream.ended = (async () => {
    try {
      for await (const e of readEventStream(body)) {
        if (e.event === 'snapshot') stream.snapshots++;
        if (e.event === 'end') stream.endedWith = JSON.parse(e.data);
      }
    } catch (err) {
      if (!abort.signal.aborted) throw err;
    } finally {
      stream.isEnded = true;
    }
  })();
  return stream;
}

/** Fails unless `stream` ends within `ms`. */
async function endsWithin(stream: Stream, ms: number, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: the stream was still open after ${ms} ms`)), ms);
  });
  try {
    await Promise.race([stream.ended, late]);
  } finally {
    clearTimeout(timer);
  }
}

for (const mode of MODES) {
  describe(`Live streams end with their access and are capped: ${mode}`, function () {
    this.timeout(180_000);
    let spoor: Harness;
    const open: Stream[] = [];
    let port = 4820;
    const newScope = () => ({ origin: `http://localhost:${port++}`, project: `live/access-${port}` });

    const live = async (token: string, scope: Record<string, string>) => {
      const s = await openStream(spoor.url, token, scope);
      open.push(s);
      return s;
    };
    /** An account with a project, and a stream of it that has shown its first snapshot. */
    const watching = async (client: ApiClient, scope: Record<string, string>, token = client.token!) => {
      const s = await live(token, scope);
      expect(s.status, JSON.stringify(s.body)).to.equal(200);
      await waitFor(
        async () => s.snapshots,
        (n) => n >= 1,
        8000,
        'a first snapshot',
      );
      return s;
    };
    const closeAll = async () => {
      for (const s of open.splice(0)) s.close();
      await waitFor(
        async () => (await fetch(new URL('/metrics', spoor.url))).text(),
        (t) => /counter="live_viewers"} 0\b/.test(t),
        5000,
        'every stream closed',
      );
    };

    before(async function () {
      const started = await startSpoor(mode, { SPOOR_LIVE_STREAMS_PER_ACCOUNT: '3', SPOOR_LIVE_STREAMS_MAX: '5' });
      requireEngine(this, started ? 'ok' : null, `engines for ${mode} mode`);
      spoor = started!;
    });

    afterEach(closeAll);

    after(async () => {
      for (const s of open) s.close();
      await spoor?.stop();
    });

    it('ends a stream within 10 s of its ID token being logged out; the account’s other token keeps watching', async () => {
      const email = `live-logout-${Date.now()}@example.com`;
      const api = await signUp(spoor.url, email);
      const scope = newScope();
      expect((await api.post('/v1/users/projects', scope)).status).to.equal(200);
      const login = await new ApiClient(spoor.url).post('/v1/auth/login', { email, password: PASSWORD });
      const other = await watching(api, scope, login.body.id_token as string);
      const stream = await watching(api, scope);

      expect((await api.call('POST', '/v1/auth/logout')).status).to.equal(200);
      await endsWithin(stream, END_WITHIN_MS, 'after logout');
      expect(stream.endedWith).to.deep.equal({ status: 401, detail: 'Invalid token: logged out' });
      expect((await live(api.token!, scope)).status).to.equal(401);

      const seen = other.snapshots;
      await waitFor(
        async () => other.snapshots,
        (n) => n > seen,
        8000,
        'the other token still served',
      );
      expect(other.isEnded).to.equal(false);
    });

    it('ends a stream within 10 s of its API key being deleted', async () => {
      const api = await signUp(spoor.url);
      const scope = newScope();
      expect((await api.post('/v1/users/projects', scope)).status).to.equal(200);
      const key = await api.post('/v1/users/apikey', { api_key_name: 'wall-screen', scope: 'read' });
      expect(key.status, key.text).to.equal(200);
      const stream = await watching(api, scope, key.body.api_key as string);
      const byToken = await watching(api, scope);

      expect((await api.delete('/v1/users/apikey/wall-screen')).status).to.equal(200);
      await endsWithin(stream, END_WITHIN_MS, 'after the API key was deleted');
      expect(stream.endedWith).to.deep.equal({ status: 401, detail: 'Invalid API key' });
      expect(byToken.isEnded).to.equal(false);
    });

    it("ends a member's stream within 10 s of the member's removal; the owner's keeps going (issue 45)", async () => {
      const owner = await signUp(spoor.url);
      const scope = newScope();
      expect((await owner.post('/v1/users/projects', scope)).status).to.equal(200);
      const viewerEmail = `live-viewer-${Date.now()}@example.com`;
      const invited = await owner.post('/v1/projects/invitations', { ...scope, email: viewerEmail, role: 'viewer' });
      expect(invited.status, invited.text).to.equal(200);
      const viewer = await signUp(spoor.url, viewerEmail);
      const token = new URL(invited.body.link as string).hash.replace(/^#token=/, '');
      const accepted = await viewer.post('/v1/invitations/accept', { token });
      expect(accepted.status, accepted.text).to.equal(200);
      const account = (await viewer.get('/v1/users/account')).body.account_id as string;
      const stream = await watching(viewer, scope);
      const ownerStream = await watching(owner, scope);

      expect((await owner.delete(`/v1/projects/members/${account}`, scope)).status).to.equal(200);
      await endsWithin(stream, END_WITHIN_MS, 'after the member was removed');
      expect(stream.endedWith).to.deep.equal({ status: 404, detail: 'Project not found' });
      expect(ownerStream.isEnded).to.equal(false);
    });

    it('ends every stream of a project within 10 s of its deletion, and not those of its other project', async () => {
      const api = await signUp(spoor.url);
      const [doomed, kept] = [newScope(), newScope()];
      for (const scope of [doomed, kept]) expect((await api.post('/v1/users/projects', scope)).status).to.equal(200);
      const streams = [await watching(api, doomed), await watching(api, doomed)];
      const keptStream = await watching(api, kept);

      const queued = await api.delete('/v1/projects', { ...doomed, confirm: doomed.project });
      expect(queued.status, queued.text).to.equal(200);
      // Deletion is a job: the bound runs from when the project is gone for requests.
      await waitFor(
        () => api.get('/v1/live', doomed),
        (r) => r.status === 404,
        60_000,
        'the project deletion',
      );
      for (const s of streams) await endsWithin(s, END_WITHIN_MS, 'after the project was deleted');
      for (const s of streams) expect(s.endedWith).to.deep.equal({ status: 404, detail: 'Project not found' });
      expect(keptStream.isEnded).to.equal(false);
    });

    it("ends the streams of every credential of an account within 10 s of the account's deletion", async () => {
      const email = `live-doomed-${Date.now()}@example.com`;
      const api = await signUp(spoor.url, email);
      const scope = newScope();
      expect((await api.post('/v1/users/projects', scope)).status).to.equal(200);
      const key = (await api.post('/v1/users/apikey', { api_key_name: 'cli' })).body.api_key as string;
      const streams = [await watching(api, scope), await watching(api, scope, key)];

      const queued = await api.delete('/v1/users/account', { confirm: email });
      expect(queued.status, queued.text).to.equal(200);
      await waitFor(
        () => api.get('/v1/users/account'),
        (r) => r.status === 401,
        60_000,
        'the account deletion',
      );
      for (const s of streams) await endsWithin(s, END_WITHIN_MS, 'after the account was deleted');
      for (const s of streams) expect(s.endedWith?.status).to.equal(401);
    });

    it('caps open streams per account (3 here) and per process (5 here) with a 429; closing one frees a slot', async () => {
      const [first, second] = [await signUp(spoor.url), await signUp(spoor.url)];
      const [scope1, scope2] = [newScope(), newScope()];
      expect((await first.post('/v1/users/projects', scope1)).status).to.equal(200);
      expect((await second.post('/v1/users/projects', scope2)).status).to.equal(200);
      const mine = [];
      for (let i = 0; i < 3; i++) mine.push(await live(first.token!, scope1));
      expect(mine.map((s) => s.status)).to.deep.equal([200, 200, 200]);

      const overAccount = await live(first.token!, scope1);
      expect(overAccount.status).to.equal(429);
      expect(overAccount.headers.get('retry-after')).to.equal('5');
      expect(overAccount.body).to.deep.equal({
        detail:
          'Too many open live streams: this account has 3 open, the most an account may have on one server; close one to open another',
      });

      const theirs = [await live(second.token!, scope2), await live(second.token!, scope2)];
      expect(theirs.map((s) => s.status)).to.deep.equal([200, 200]);
      const overProcess = await live(second.token!, scope2);
      expect([overProcess.status, overProcess.body]).to.deep.equal([
        429,
        { detail: 'Too many open live streams: this server holds 5, the most it may; retry later' },
      ]);
      // The refusals took no slot, and HEAD (headers only) takes none either.
      const head = await new ApiClient(spoor.url, second.token).call('HEAD', '/v1/live', scope2);
      expect(head.status).to.equal(200);

      mine[0]!.close();
      const again = await waitFor(
        async () => {
          const s = await live(second.token!, scope2);
          return s.status;
        },
        (status) => status === 200,
        5000,
        'a slot freed by the closed stream',
      );
      expect(again).to.equal(200);
      expect((await live(first.token!, scope1)).status).to.equal(429);
      const refused = /counter="live_streams_refused"} (\d+)/.exec((await first.get('/metrics')).text);
      expect(Number(refused?.[1])).to.be.at.least(3);
    });
  });
}
