import { expect } from 'chai';
import { requireEngine } from '@spoor/testkit';
import { MODES } from '../support/engine-env.js';
import { post, registerProject, startSpoor, waitFor, type Harness } from '../support/spoor-harness.js';

const ORIGIN = 'https://errors.example';
const ok = { project: 'err/web', action: 'click', timestamp: 1732262400000, payload: {} };

interface Case {
  name: string;
  body: unknown;
  headers?: Record<string, string>;
  path?: string;
  status: number;
  /** For 422: the expected first detail item (loc and type). */
  loc?: Array<string | number>;
  type?: string;
}

/** `{"a":{"a":…1…}}` nested `depth` deep, built as text: the test's own JSON.stringify would overflow on it. */
const nestedJson = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const okJson = (payloadJson: string) =>
  `{"project":"err/web","action":"click","timestamp":${Date.now()},"payload":${payloadJson}}`;
const now = Date.now();

const cases: Case[] = [
  { name: 'malformed JSON', body: '{"project": "err/web", "action": ', status: 400 },
  {
    name: 'a JSON string that is not an object',
    body: '"just a string"',
    status: 422,
    loc: ['body'],
    type: 'dict_type',
  },
  { name: 'an empty body', body: '', status: 422, loc: ['body'], type: 'missing' },
  {
    name: 'action of the wrong type',
    body: { ...ok, action: 5 },
    status: 422,
    loc: ['body', 'action'],
    type: 'string_type',
  },
  {
    name: 'missing timestamp',
    body: { project: 'err/web', action: 'click' },
    status: 422,
    loc: ['body', 'timestamp'],
    type: 'missing',
  },
  {
    name: 'missing action',
    body: { project: 'err/web', timestamp: 1 },
    status: 422,
    loc: ['body', 'action'],
    type: 'missing',
  },
  {
    name: 'missing project',
    body: { action: 'a', timestamp: 1 },
    status: 422,
    loc: ['body', 'project'],
    type: 'missing',
  },
  {
    name: 'timestamp as a string',
    body: { ...ok, timestamp: '1732262400000' },
    status: 422,
    loc: ['body', 'timestamp'],
    type: 'int_type',
  },
  {
    name: 'timestamp as a float',
    body: { ...ok, timestamp: 1.5 },
    status: 422,
    loc: ['body', 'timestamp'],
    type: 'int_type',
  },
  {
    name: 'negative timestamp',
    body: { ...ok, timestamp: -1 },
    status: 422,
    loc: ['body', 'timestamp'],
    type: 'greater_than_equal',
  },
  {
    name: 'payload that is a list',
    body: { ...ok, payload: [1, 2] },
    status: 422,
    loc: ['body', 'payload'],
    type: 'dict_type',
  },
  {
    name: 'payload that is a string',
    body: { ...ok, payload: 'x' },
    status: 422,
    loc: ['body', 'payload'],
    type: 'dict_type',
  },
  { name: 'a 40 KB payload', body: { ...ok, payload: { blob: 'x'.repeat(40 * 1024) } }, status: 413 },
  {
    name: 'a 2 MB body',
    body: { events: Array.from({ length: 80 }, () => ({ ...ok, payload: { blob: 'x'.repeat(25 * 1024) } })) },
    path: '/v1/event/batch',
    status: 413,
  },
  { name: 'an unknown project', body: { ...ok, project: 'nobody/here' }, status: 404 },
  { name: 'an unknown origin in the body', body: { ...ok, origin: 'https://other.example' }, status: 404 },
  {
    name: 'a browser Origin that differs from the project',
    body: ok,
    headers: { origin: 'https://evil.example' },
    status: 403,
  },
  {
    name: 'body origin and Origin header that disagree',
    body: { ...ok, origin: ORIGIN },
    headers: { origin: 'https://evil.example' },
    status: 403,
  },
  {
    name: 'a content type that is not JSON',
    body: JSON.stringify(ok),
    headers: { 'content-type': 'application/xml' },
    status: 415,
  },
  {
    name: 'a batch of 501 events',
    body: { events: Array.from({ length: 501 }, () => ok) },
    path: '/v1/event/batch',
    status: 422,
    loc: ['body', 'events'],
    type: 'too_long',
  },
  {
    name: 'a batch with one bad event',
    body: { events: [ok, { ...ok, action: '' }] },
    path: '/v1/event/batch',
    status: 422,
    loc: ['body', 'events', 1, 'action'],
    type: 'string_too_short',
  },
  {
    name: 'a batch that is not a list',
    body: { events: ok },
    path: '/v1/event/batch',
    status: 422,
    loc: ['body', 'events'],
    type: 'list_type',
  },
  // Issue 13: what the enricher would drop is refused here, so a 200 is never dropped later.
  {
    name: 'a payload nested 33 deep',
    body: okJson(nestedJson(33)),
    status: 422,
    loc: ['body', 'payload'],
    type: 'value_error',
  },
  {
    name: 'a payload nested 32 deep, the most allowed, plus a bad action',
    body: okJson(nestedJson(32)).replace('"click"', '""'),
    status: 422,
    loc: ['body', 'action'],
    type: 'string_too_short',
  },
  {
    name: 'a payload nested 10,000 deep',
    body: okJson(nestedJson(10_000)),
    status: 422,
    loc: ['body'],
    type: 'value_error',
  },
  {
    name: 'a batch whose events are an object nested 10,000 deep',
    body: `{"events":${nestedJson(10_000)}}`,
    path: '/v1/event/batch',
    status: 422,
    loc: ['body'],
    type: 'value_error',
  },
  {
    name: 'a batch of events nested 100,000 deep in lists',
    body: `{"events":[${'['.repeat(100_000)}${']'.repeat(100_000)}]}`,
    path: '/v1/event/batch',
    status: 422,
    loc: ['body'],
    type: 'value_error',
  },
  {
    name: 'a timestamp of 8.64e15',
    body: { ...ok, timestamp: 8.64e15 },
    status: 422,
    loc: ['body', 'timestamp'],
    type: 'value_error',
  },
  {
    name: 'a timestamp in seconds',
    body: { ...ok, timestamp: 1_795_486_000 },
    status: 422,
    loc: ['body', 'timestamp'],
    type: 'value_error',
  },
  {
    name: 'a timestamp 25 hours ahead',
    body: { ...ok, timestamp: now + 25 * 3_600_000 },
    status: 422,
    loc: ['body', 'timestamp'],
    type: 'value_error',
  },
  {
    name: 'a sent_at whose correction moves the event 20 years ahead',
    body: { ...ok, timestamp: now, sent_at: now - 20 * 365 * 86_400_000 },
    status: 422,
    loc: ['body', 'sent_at'],
    type: 'value_error',
  },
  {
    name: 'a batch with one event from 1970',
    body: {
      events: [
        { ...ok, timestamp: now },
        { ...ok, timestamp: 86_400_000 },
      ],
    },
    path: '/v1/event/batch',
    status: 422,
    loc: ['body', 'events', 1, 'timestamp'],
    type: 'value_error',
  },
];

for (const mode of MODES) {
  describe(`Ingest rejects bad input: ${mode}`, function () {
    this.timeout(60_000);
    let spoor: Harness;
    let projectId: string;

    before(async function () {
      const started = await startSpoor(mode);
      requireEngine(this, started ? 'ok' : null, `engines for ${mode} mode`);
      spoor = started!;
      projectId = (await registerProject(spoor.store, ORIGIN, 'err/web')).project_id;
    });
    after(async () => spoor?.stop());

    for (const c of cases) {
      it(`answers ${c.status} to ${c.name}`, async () => {
        const res = await post(`${spoor.url}${c.path ?? '/v1/event'}`, c.body, c.headers ?? { origin: ORIGIN });
        expect(res.status, JSON.stringify(res.body)?.slice(0, 300)).to.equal(c.status);
        expect(res.headers.get('access-control-allow-origin')).to.be.a('string');
        expect(res.headers.get('access-control-allow-methods')).to.be.a('string');
        expect(res.headers.get('access-control-allow-headers')).to.be.a('string');
        if (c.status === 422) {
          expect(res.body.detail).to.be.an('array').that.is.not.empty;
          expect(res.body.detail[0]).to.include.keys('loc', 'msg', 'type');
          expect(res.body.detail[0].loc).to.deep.equal(c.loc);
          expect(res.body.detail[0].type).to.equal(c.type);
        } else {
          expect(res.body.detail).to.be.a('string').that.is.not.empty;
        }
      });
    }

    it('answers OPTIONS with 200, an empty body and the CORS headers', async () => {
      for (const path of ['/v1/event', '/v1/event/batch', '/v1/anything/else']) {
        const res = await fetch(`${spoor.url}${path}`, {
          method: 'OPTIONS',
          headers: { origin: ORIGIN, 'access-control-request-method': 'POST' },
        });
        expect(res.status).to.equal(200);
        expect(await res.text()).to.equal('');
        expect(res.headers.get('access-control-allow-origin')).to.equal(ORIGIN);
        expect(res.headers.get('access-control-allow-methods')).to.contain('POST');
        expect(res.headers.get('access-control-allow-headers')).to.contain('Content-Type');
      }
    });

    it('accepts a trailing slash and server-side calls without an Origin', async () => {
      expect((await post(`${spoor.url}/v1/event/`, ok, {})).status).to.equal(200);
    });

    it('stored nothing from the rejected requests', async () => {
      await waitFor(
        () => spoor.store.events.countRaw(projectId),
        (n) => n >= 1,
        20_000,
        'the one accepted event',
      );
      await new Promise((r) => setTimeout(r, 300));
      expect(await spoor.store.events.countRaw(projectId)).to.equal(1);
    });
  });
}
