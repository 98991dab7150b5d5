/// <reference types="mocha" />
import { expect } from 'chai';
import type { Geo, RawEvent } from '@spoor/schemas';
import { createEnrichmentPipeline, STEP_NAMES, type EnrichmentPipelineOptions } from '../src/enrichment-pipeline.js';
import { MAX_FUTURE_MS } from '../src/event-guard-step.js';
import { EMPTY_GEO, type GeoLookup } from '../src/geo-lookup.js';

const NOW = 1_732_262_400_000;
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const LONDON: Geo = { country: 'GB', region: 'England', city: 'London', latitude: 51.5, longitude: -0.1 };

function rawEvent(overrides: Partial<RawEvent> = {}): RawEvent {
  return {
    event_id: 'e1',
    project_id: 'p1',
    project: 'acme/web',
    origin: 'https://acme.com',
    action: 'click',
    timestamp: NOW,
    client_timestamp: NOW,
    sent_at: null,
    received_at: NOW,
    payload: { button: 'buy' },
    session_id: null,
    url: 'https://acme.com/pricing?plan=pro&utm_source=news',
    referrer: 'https://www.google.com/',
    ip: '81.2.69.142',
    user_agent: CHROME,
    ...overrides,
  };
}

/** A geo lookup that records what it was asked, to prove it sees the original address. */
function recordingGeo(): GeoLookup & { asked: string[] } {
  const asked: string[] = [];
  return { asked, source: 'test', lookup: (ip) => (asked.push(ip), ip.startsWith('81.2.69.') ? LONDON : EMPTY_GEO) };
}

function pipeline(overrides: Partial<EnrichmentPipelineOptions> = {}) {
  return createEnrichmentPipeline({
    ipMode: 'full',
    ipSalt: 'salt',
    geo: recordingGeo(),
    clock: () => NOW,
    ...overrides,
  });
}

describe('enrichment-pipeline', () => {
  it('runs its steps in the documented order', () => {
    expect(STEP_NAMES).to.deep.equal([
      'check_timestamp',
      'check_payload_depth',
      'put_geolocation',
      'put_session_key',
      'put_user_agent',
      'put_url',
      'put_referrer',
      'put_ip',
    ]);
  });

  it('enriches every field group', () => {
    const result = pipeline().enrich(rawEvent());
    if (!result.ok) throw new Error(`dropped: ${result.reason}`);
    const { event } = result;
    expect(event).to.include({ event_id: 'e1', ip: '81.2.69.142', bot: false, path: '/pricing', session_id: null });
    expect(event.geo).to.deep.equal(LONDON);
    expect(event.browser).to.deep.equal({ name: 'Chrome', version: '120.0.0.0' });
    expect(event.os).to.deep.equal({ name: 'Windows', version: '10' });
    expect(event.device).to.deep.equal({ type: 'desktop', vendor: null, model: null });
    expect(event.query).to.deep.equal({ plan: 'pro', utm_source: 'news' });
    expect(event.utm.source).to.equal('news');
    expect(event.referrer).to.equal('https://www.google.com/');
    expect(event.payload).to.deep.equal({ button: 'buy' });
    expect(result.sessionKey).to.match(/^[0-9a-f]{32}$/);
    expect(event).not.to.have.property('sessionKey');
  });

  it('keeps the session id the logger sent', () => {
    const result = pipeline().enrich(rawEvent({ session_id: 's-42' }));
    expect(result.ok && result.event.session_id).to.equal('s-42');
  });

  it('does not mutate the raw event', () => {
    const raw = rawEvent({ ip: '::ffff:81.2.69.142' });
    const copy = structuredClone(raw);
    pipeline({ ipMode: 'hash' }).enrich(raw);
    expect(raw).to.deep.equal(copy);
  });

  for (const ipMode of ['truncate', 'hash'] as const) {
    it(`${ipMode} mode: geo and session key use the original address, storage does not`, () => {
      const geo = recordingGeo();
      const result = pipeline({ ipMode, geo }).enrich(rawEvent());
      const full = pipeline({ ipMode: 'full' }).enrich(rawEvent());
      if (!result.ok || !full.ok) throw new Error('dropped');
      expect(geo.asked).to.deep.equal(['81.2.69.142']);
      expect(result.event.geo).to.deep.equal(LONDON);
      expect(result.event.ip).not.to.equal('81.2.69.142');
      expect(result.sessionKey).to.equal(full.sessionKey);
    });
  }

  it('gives visitors in one /24 different session keys even when truncating', () => {
    const p = pipeline({ ipMode: 'truncate' });
    const a = p.enrich(rawEvent({ ip: '81.2.69.1' }));
    const b = p.enrich(rawEvent({ ip: '81.2.69.2' }));
    if (!a.ok || !b.ok) throw new Error('dropped');
    expect(a.event.ip).to.equal(b.event.ip);
    expect(a.sessionKey).not.to.equal(b.sessionKey);
  });

  it('flags bots and keeps them', () => {
    const result = pipeline().enrich(
      rawEvent({ user_agent: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' }),
    );
    expect(result.ok && result.event.bot).to.equal(true);
  });

  it('flags a headless browser as a bot (issue 20), a desktop Chrome not', () => {
    const headless =
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36';
    const desktop = headless.replace('HeadlessChrome', 'Chrome');
    const flagged = pipeline().enrich(rawEvent({ user_agent: headless }));
    const person = pipeline().enrich(rawEvent({ user_agent: desktop }));
    expect(flagged.ok && flagged.event.bot).to.equal(true);
    expect(person.ok && person.event.bot).to.equal(false);
  });

  describe('drops, each counted', () => {
    const drops: Array<[string, Partial<RawEvent>, string]> = [
      ['a timestamp more than 24 h ahead', { timestamp: NOW + MAX_FUTURE_MS + 1 }, 'invalid_timestamp'],
      ['a negative timestamp', { timestamp: -5 }, 'invalid_timestamp'],
      [
        'a payload nested 33 deep',
        { payload: JSON.parse('{"a":'.repeat(32) + '{}' + '}'.repeat(32)) as Record<string, unknown> },
        'payload_too_deep',
      ],
    ];
    for (const [label, overrides, reason] of drops) {
      it(label, () => {
        const p = pipeline();
        expect(p.enrich(rawEvent(overrides))).to.deep.equal({ ok: false, reason });
        expect(p.counters()).to.include({ [reason]: 1, enriched: 0 });
      });
    }

    it('counts every outcome and hands out snapshots', () => {
      const p = pipeline();
      p.enrich(rawEvent());
      p.enrich(rawEvent());
      p.enrich(rawEvent({ timestamp: NOW + 2 * MAX_FUTURE_MS }));
      const snapshot = p.counters();
      expect(snapshot).to.deep.equal({ enriched: 2, invalid_timestamp: 1, payload_too_deep: 0 });
      snapshot.enriched = 99;
      expect(p.counters().enriched).to.equal(2);
    });

    it('checks the future against the clock when received_at is missing', () => {
      const p = pipeline({ clock: () => NOW });
      const raw = rawEvent({ received_at: 0, timestamp: NOW + MAX_FUTURE_MS + 1 });
      expect(p.enrich(raw)).to.deep.equal({ ok: false, reason: 'invalid_timestamp' });
      expect(p.enrich(rawEvent({ received_at: 0 })).ok).to.equal(true);
    });
  });

  describe('inputs that break parsers still enrich', () => {
    const cases: Array<[string, Partial<RawEvent>]> = [
      ['empty user agent', { user_agent: '' }],
      ['10 KB user agent', { user_agent: `Mozilla/5.0 ${'x'.repeat(10 * 1024)}` }],
      ['unicode user agent', { user_agent: 'Mozilla/5.0 (☃; 中文) 😀' }],
      ['javascript: url', { url: 'javascript:alert(1)' }],
      ['percent garbage url', { url: 'https://acme.com/%E0%A4%A?x=%zz' }],
      ['relative url', { url: '/a/b?c=d' }],
      ['null url and referrer', { url: null, referrer: null }],
      ['garbage referrer', { referrer: '%%%' }],
      ['empty ip', { ip: '' }],
      ['non-IP string', { ip: 'unknown' }],
      ['IPv6 with zone id', { ip: 'fe80::1%eth0' }],
      ['0.0.0.0', { ip: '0.0.0.0' }],
      ['garbage origin', { origin: 'not an origin', url: '/x' }],
    ];
    for (const mode of ['full', 'truncate', 'hash'] as const) {
      for (const [label, overrides] of cases) {
        it(`${mode}: ${label}`, () => {
          const result = pipeline({ ipMode: mode }).enrich(rawEvent(overrides));
          expect(result.ok).to.equal(true);
        });
      }
    }

    it('stores no ip and no geo for a non-IP address', () => {
      const result = pipeline({ ipMode: 'truncate' }).enrich(rawEvent({ ip: 'unknown' }));
      if (!result.ok) throw new Error('dropped');
      expect(result.event.ip).to.equal('');
      expect(result.event.geo).to.deep.equal(EMPTY_GEO);
    });

    it('drops a javascript: page url and derives nothing from it', () => {
      const result = pipeline().enrich(rawEvent({ url: 'javascript:alert(1)' }));
      if (!result.ok) throw new Error('dropped');
      expect(result.event).to.include({ url: null, path: null });
      expect(result.event.query).to.deep.equal({});
    });

    it('resolves a relative url against the origin and detects self-referrals with it', () => {
      const result = pipeline().enrich(rawEvent({ url: '/a', referrer: 'https://acme.com/b' }));
      if (!result.ok) throw new Error('dropped');
      expect(result.event).to.include({ url: 'https://acme.com/a', path: '/a', referrer: null });
    });
  });

  describe('options', () => {
    it('refuses an unknown IP mode', () => {
      expect(() => pipeline({ ipMode: 'partial' as 'full' })).to.throw(RangeError);
    });
    it('refuses hash mode without a salt', () => {
      expect(() => pipeline({ ipMode: 'hash', ipSalt: '' })).to.throw(RangeError);
    });
  });
});
