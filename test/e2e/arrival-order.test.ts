// Issue 43, target 4: every derived figure is deterministic. One fixed set of events — six
// visitors (told apart by IP and user agent, behind a trusted proxy), sessions with the logger's
// id and sessions Spoor derives, UTM parameters, several events in one millisecond (a session's
// first two among them, with different URLs, referrers and UTM sources), events without a URL —
// goes into one project per arrival order: in order; in order with some events held back and
// sent late; shuffled across batches; reversed. Batches after the first are sent once the one
// before was applied, so late events meet stored sessions. The session summaries, the stored
// overview, funnels with a breakdown, retention and the transition matrix are then the same in
// every project, on both engines. Derived session ids are made from the first event to arrive
// (docs/analytics.md, Determinism), so those sessions are compared by their contents.
import { expect } from 'chai';
import { requireEngine } from '@spoor/testkit';
import { ApiClient, signUp } from '../support/api-client.js';
import { MODES } from '../support/engine-env.js';
import { post, startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';

type Scope = { origin: string; project: string };
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface Ev {
  visitor: number;
  event: { action: string; timestamp: number; event_id: string } & Record<string, unknown>;
}

/** mulberry32: the same numbers on every run. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A start 40 minutes into an hour, hours ago, whose events (up to 90 minutes) stay on one UTC day. */
function startTime(now: number): number {
  let t = Math.floor((now - 5 * HOUR) / HOUR) * HOUR + 40 * 60_000;
  while (Math.floor(t / DAY) !== Math.floor((t + 2 * HOUR) / DAY)) t -= 3 * HOUR;
  return t;
}

/** Six visitors, each with two logger sessions and one derived session (under 30 minutes, so never cut). */
function buildEvents(origin: string, t0: number): Ev[] {
  const rnd = prng(43);
  const id = () =>
    Math.floor(rnd() * 2 ** 32)
      .toString(16)
      .padStart(8, '0');
  const events: Ev[] = [];
  for (let visitor = 0; visitor < 6; visitor++) {
    for (let s = 0; s < 3; s++) {
      const sessionId = s < 2 ? `v${visitor}-s${s}` : undefined;
      let at = t0 + visitor * 7_000 + s * 25 * 60_000 + Math.floor(rnd() * 5_000);
      const n = 8 + Math.floor(rnd() * 8);
      for (let i = 0; i < n; i++) {
        // The first two events share a millisecond; later ones do one time in three.
        if (i > 1) at += rnd() < 0.33 ? 0 : 1_000 + Math.floor(rnd() * 60_000 * (s === 2 ? 0.2 : 1));
        const action = i < 2 ? 'pageview' : ['pageview', 'click', 'scroll', 'signup'][Math.floor(rnd() * 4)]!;
        const source = ['alpha', 'beta', 'gamma'][(visitor + s + i) % 3];
        const url = action === 'signup' ? undefined : `${origin}/p${i % 4}?utm_source=${source}&utm_medium=m${i}`;
        events.push({
          visitor,
          event: {
            action,
            timestamp: at,
            event_id: `${id()}-${visitor}${s}${i}`,
            ...(sessionId ? { session_id: sessionId } : {}),
            ...(url ? { url } : {}),
            ...(i < 2 ? { referrer: `https://ref${i}.example/${visitor}` } : {}),
          },
        });
      }
    }
  }
  return events;
}

const byTime = (a: Ev, b: Ev) =>
  a.event.timestamp - b.event.timestamp || (a.event.event_id < b.event.event_id ? -1 : 1);

/** The arrival orders: each a list of batches; every batch after the first waits for the one before. */
function arrivalOrders(events: Ev[]): Record<string, Ev[][]> {
  const sorted = [...events].sort(byTime);
  const rnd = prng(7);
  const late = sorted.filter(() => rnd() < 0.15);
  const shuffled = [...events];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
  }
  const chunks = (list: Ev[], k: number) =>
    Array.from({ length: k }, (_, i) =>
      list.slice(Math.floor((i * list.length) / k), Math.floor(((i + 1) * list.length) / k)),
    );
  return {
    'in order': [sorted],
    'late events': [sorted.filter((e) => !late.includes(e)), late],
    shuffled: chunks(shuffled, 4),
    reversed: chunks([...sorted].reverse(), 3),
  };
}

/** What legitimately differs between projects. */
const VARYING = new Set([
  'origin',
  'project',
  'project_id',
  'job_id',
  'created_at',
  'updated_at',
  'generated_at',
  'classified_at',
]);
function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !VARYING.has(k))
      .map(([k, v]) => [k, strip(v)]),
  );
}

/** JSON with sorted keys: what deep equality compares. */
const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort()) : x,
  );

for (const mode of MODES) {
  describe(`Arrival order: ${mode}`, function () {
    this.timeout(600_000);
    let spoor: Harness;
    let api: ApiClient;
    const t0 = startTime(Date.now());
    const window = {
      window_start: Math.floor(t0 / HOUR) * HOUR - HOUR / 2,
      window_end: Math.floor(t0 / HOUR) * HOUR + 3 * HOUR,
    };
    const visitors = Array.from({ length: 6 }, (_, v) => ({
      ip: `198.51.100.${10 + v}`,
      ua: `Mozilla/5.0 (X11; Linux x86_64) Chrome/13${v}.0 visitor-${v}`,
    }));
    const snapshots = new Map<string, Record<string, unknown>>();

    async function summaries(scope: Scope): Promise<any[]> {
      const res = await api.get('/v1/sessions', { ...scope, limit: 1000, include: 'summary' });
      expect(res.status, res.text).to.equal(200);
      return res.body.sessions;
    }
    const applied = async (scope: Scope) =>
      (await summaries(scope)).reduce((n: number, s: { event_count: number }) => n + s.event_count, 0);

    async function runJob(scope: Scope, kind: 'aggregation' | 'transitions') {
      const queued = await api.post(`/v1/trigger/${kind}`, { ...scope, ...window });
      expect(queued.status, queued.text).to.equal(200);
      const done = await waitFor(
        () => api.get(`/v1/jobs/${queued.body.job_id}`),
        (r) => ['succeeded', 'failed'].includes(r.body?.status),
        120_000,
        `${kind} job`,
      );
      expect(done.body.status, done.body.error).to.equal('succeeded');
      return done.body.result;
    }

    async function send(origin: string, project: string, batches: Ev[][]) {
      let sent = 0;
      for (const batch of batches) {
        // One request per visitor (its IP and user agent), each in the batch's order.
        for (const [v, { ip, ua }] of visitors.entries()) {
          const events = batch.filter((e) => e.visitor === v).map((e) => ({ project, ...e.event }));
          if (events.length === 0) continue;
          const res = await post(
            `${spoor.url}/v1/event/batch`,
            { events },
            { origin, 'user-agent': ua, 'x-forwarded-for': ip },
          );
          expect(res.status, JSON.stringify(res.body)).to.equal(200);
        }
        sent += batch.length;
        const scope = { origin, project };
        await waitFor(
          () => applied(scope),
          (n) => n === sent,
          60_000,
          `${sent} events applied`,
        );
      }
    }

    /** Everything derived, with derived session ids replaced by their contents. */
    async function snapshot(scope: Scope, given: Set<string>) {
      const sessions = (await summaries(scope))
        .map((s) => ({
          ...s,
          session_id: given.has(s.session_id) ? s.session_id : `derived@${s.first_event_at}/${s.event_count}`,
        }))
        .sort((a, b) => (a.session_id < b.session_id ? -1 : 1));
      await runJob(scope, 'aggregation');
      const overview = (await api.get('/v1/projects/overview', scope)).body.overviews[0];
      const steps = [{ action: 'pageview' }, { action: 'click' }, { action: 'signup' }];
      const funnel = await api.post('/v1/funnels/query', { ...scope, ...window, steps, breakdown: 'utm_source' });
      const byEntry = await api.post('/v1/funnels/query', {
        ...scope,
        ...window,
        steps,
        unit: 'visitor',
        order: 'any',
        breakdown: 'entry_page',
      });
      const retention = await api.get('/v1/retention', { ...scope, ...window, period: 'day' });
      await runJob(scope, 'transitions');
      const transitions = await api.get('/v1/transitions', scope);
      for (const r of [funnel, byEntry, retention, transitions]) expect(r.status, r.text).to.equal(200);
      return strip({
        sessions,
        overview,
        funnel: funnel.body,
        byEntry: byEntry.body,
        retention: retention.body,
        transitions: transitions.body,
      }) as Record<string, unknown>;
    }

    before(async function () {
      const started = await startSpoor(mode, { SPOOR_TRUST_PROXY: 'true' });
      requireEngine(this, started ? 'ok' : null, `engines for ${mode} mode`);
      spoor = started!;
      api = await signUp(spoor.url);
      const orders = arrivalOrders(buildEvents('http://localhost:4730', t0));
      const given = new Set(
        Object.values(orders)[0]!
          .flat()
          .map((e) => e.event.session_id as string),
      );
      for (const [i, [name, batches]] of Object.entries(orders).entries()) {
        const scope = { origin: `http://localhost:${4730 + i}`, project: 'order/web' };
        expect((await api.post('/v1/users/projects', scope)).status).to.equal(200);
        // Every project gets the same events: their URLs name the first project's origin.
        await send(scope.origin, scope.project, batches);
        snapshots.set(name, await snapshot(scope, given));
      }
    });

    after(async () => {
      await spoor?.stop();
    });

    it('sends a set of events with ties, late events and UTM sources', () => {
      const base = snapshots.get('in order')! as any;
      expect(base.sessions).to.have.length(18);
      expect(base.overview.sessions).to.equal(18);
      expect(base.overview.utm_sources.length).to.be.greaterThan(1);
      expect(base.funnel.breakdown.groups.length).to.be.greaterThan(1);
      expect(base.transitions.sessions).to.equal(18);
    });

    it('gives each session the UTM source of its entry URL (every URL here carries one, and only URLs do)', () => {
      for (const [name, snap] of snapshots)
        for (const s of snap.sessions as Array<{ session_id: string; entry_url: string; utm: { source: string } }>)
          expect(s.utm.source, `${name} ${s.session_id}`).to.equal(new URL(s.entry_url).searchParams.get('utm_source'));
    });

    for (const name of ['late events', 'shuffled', 'reversed'])
      for (const part of ['sessions', 'overview', 'funnel', 'byEntry', 'retention', 'transitions'])
        it(`${part}: ${name} as in order`, () => {
          const base = snapshots.get('in order')![part];
          const other = snapshots.get(name)![part];
          if (part === 'sessions') {
            // Which fields of which sessions differ, to say in the failure.
            const differing = (other as any[]).flatMap((s, i) => {
              const b = (base as any[])[i] ?? {};
              const keys = Object.keys(s).filter((k) => canonical(s[k]) !== canonical(b[k]));
              return keys.length ? [`${s.session_id}: ${keys.join(',')}`] : [];
            });
            expect(other, `${differing.length} sessions differ: ${differing.join('; ')}`).to.deep.equal(base);
          } else expect(other).to.deep.equal(base);
        });
  });
}
