import { expect } from 'chai';
import type { EnrichedEvent, SessionState } from '@spoor/schemas';
import { appliedBefore, applyEvent, emptySession, markOf, SEEN_LIMIT, setMark } from '../src/session-summary.js';

const base: EnrichedEvent = {
  event_id: 'e0',
  project_id: 'p',
  project: 'a/web',
  origin: 'https://a.example',
  action: 'pageview',
  timestamp: 1000,
  client_timestamp: 1000,
  sent_at: null,
  received_at: 1000,
  payload: {},
  session_id: 's',
  url: null,
  referrer: null,
  ip: '',
  user_agent: '',
  geo: { country: null, region: null, city: null, latitude: null, longitude: null },
  browser: { name: 'Chrome', version: '120' },
  os: { name: 'Linux', version: null },
  device: { type: 'desktop', vendor: null, model: null },
  bot: false,
  path: null,
  query: {},
  utm: { source: null, medium: null, campaign: null, term: null, content: null },
};
const ev = (id: string, timestamp: number, action: string, url: string | null = null): EnrichedEvent => ({
  ...base,
  event_id: id,
  timestamp,
  action,
  url,
});

/** The event-id hashes in seen (hex), apart from the mark and the picks riding before them. */
const hashesOf = (s: SessionState) => s.seen.filter((x) => /^[0-9a-f]+$/.test(x));

/** The summary without what depends on when it was applied: the time and the order of the hashes. */
const settled = (s: SessionState) => ({ ...s, updated_at: 0, seen: [...s.seen].sort() });

/** Every order of a list (Heap's algorithm would do; the lists here are short). */
function permutations<T>(list: T[]): T[][] {
  if (list.length <= 1) return [list];
  return list.flatMap((x, i) => permutations([...list.slice(0, i), ...list.slice(i + 1)]).map((rest) => [x, ...rest]));
}

describe('applyEvent', () => {
  it('summarises events arriving out of order by their timestamps', () => {
    const s = emptySession(base);
    applyEvent(s, ev('b', 2000, 'click', 'https://a.example/b'), 10);
    applyEvent(s, ev('a', 1000, 'pageview', 'https://a.example/a'), 11);
    applyEvent(s, ev('c', 5000, 'pageview', 'https://a.example/c'), 12);
    expect(s).to.include({
      first_event_at: 1000,
      last_event_at: 5000,
      duration_ms: 4000,
      event_count: 3,
      page_count: 2,
      entry_url: 'https://a.example/a',
      exit_url: 'https://a.example/c',
      updated_at: 12,
    });
    expect(s.actions).to.deep.equal({ click: 1, pageview: 2 });
  });

  it('never applies an event twice', () => {
    const s = emptySession(base);
    expect(applyEvent(s, ev('a', 1000, 'click'), 1)).to.equal(true);
    expect(applyEvent(s, ev('a', 1000, 'click'), 2)).to.equal(false);
    expect(s.event_count).to.equal(1);
    expect(s.updated_at).to.equal(1);
  });

  it('remembers only the latest event ids, so a long session costs no more per event than a short one', () => {
    const s = emptySession(base);
    for (let i = 0; i < 5 * SEEN_LIMIT; i++) applyEvent(s, ev(`e${i}`, 1000 + i, 'click'), i);
    expect(s.event_count).to.equal(5 * SEEN_LIMIT);
    expect(hashesOf(s)).to.have.length(SEEN_LIMIT);
    // The latest are still caught as repeats.
    expect(applyEvent(s, ev(`e${5 * SEEN_LIMIT - 1}`, 1, 'click'), 99)).to.equal(false);
  });

  it('keeps the replay mark first in seen, apart from the bounded hashes', () => {
    const s = emptySession(base);
    expect(markOf(s)).to.equal(null);
    setMark(s, { source: 'spoor.events.raw/3', offset: 41 });
    for (let i = 0; i < 2 * SEEN_LIMIT; i++) applyEvent(s, ev(`e${i}`, 1000 + i, 'click'), i);
    setMark(s, { source: 'spoor.events.raw/3', offset: 9_007_199_254 });
    expect(hashesOf(s)).to.have.length(SEEN_LIMIT);
    expect(markOf(s)).to.deep.equal({ source: 'spoor.events.raw/3', offset: 9_007_199_254 });
    const mark = markOf(s);
    expect(appliedBefore(mark, 'spoor.events.raw/3', 9_007_199_254)).to.equal(true);
    expect(appliedBefore(mark, 'spoor.events.raw/3', 9_007_199_255)).to.equal(false);
    // Another topic or partition is another sequence: never compared.
    expect(appliedBefore(mark, 'spoor.events.raw/4', 1)).to.equal(false);
    expect(appliedBefore(mark, 'spoor.events.enriched/3', 1)).to.equal(false);
  });
  // Issue 43: the overview's UTM sources depended on arrival order when a session's first two
  // events shared a millisecond; entry URL and UTM source could even come from different events.
  describe('the same events in any arrival order (issue 43)', () => {
    const utm = (source: string | null) => ({ ...base.utm, source, medium: source && `${source}-m` });
    const at = (id: string, timestamp: number, over: Partial<EnrichedEvent>): EnrichedEvent => ({
      ...ev(id, timestamp, 'pageview'),
      ...over,
    });
    const events = [
      at('k2', 1000, { url: 'https://a.example/second', referrer: 'https://r2.example/', utm: utm('beta') }),
      at('k1', 1000, { url: 'https://a.example/first', referrer: 'https://r1.example/', utm: utm('alpha') }),
      at('k0', 1500, { url: null, action: 'signup' }),
      at('k4', 3000, { url: 'https://a.example/exit-b' }),
      at('k3', 3000, { url: 'https://a.example/exit-a' }),
      at('k5', 3000, { url: null, action: 'signup' }),
    ];

    it('picks entry, exit, referrer and UTM by time, then event id', () => {
      const s = emptySession(events[0]!);
      events.forEach((e, i) => applyEvent(s, e, i));
      expect(s).to.include({
        first_event_at: 1000,
        last_event_at: 3000,
        entry_url: 'https://a.example/first',
        exit_url: 'https://a.example/exit-b',
        referrer: 'https://r1.example/',
      });
      expect(s.utm.source).to.equal('alpha');
    });

    it('gives one summary for every arrival order', () => {
      const summaries = permutations(events).map((order) => {
        const s = emptySession(order[0]!);
        for (const e of order) applyEvent(s, e, 1);
        return settled(s);
      });
      for (const s of summaries) expect(s).to.deep.equal(summaries[0]);
    });

    it('lets a late event move the entry fields as it would have in order', () => {
      const late = at('z9', 500, {
        url: 'https://a.example/landing',
        referrer: 'https://late.example/',
        utm: utm('gamma'),
        browser: { name: 'Firefox', version: '133' },
      });
      const s = emptySession(events[0]!);
      for (const e of [...events, late]) applyEvent(s, e, 1);
      const inOrder = emptySession(late);
      for (const e of [late, ...events]) applyEvent(inOrder, e, 1);
      expect(settled(s)).to.deep.equal(settled(inOrder));
      expect(s).to.include({
        first_event_at: 500,
        entry_url: 'https://a.example/landing',
        referrer: 'https://late.example/',
      });
      expect(s.utm.source).to.equal('gamma');
      expect(s.browser.name).to.equal('Firefox');
    });

    it('takes the UTM fields of the earliest event with a source, as the funnel breakdown does', () => {
      const s = emptySession(events[2]!);
      applyEvent(s, at('m1', 900, { url: 'https://a.example/', utm: { ...utm(null), medium: 'cpc' } }), 1);
      applyEvent(s, at('m2', 1200, { url: 'https://a.example/x', utm: utm('delta') }), 1);
      expect(s.utm.source).to.equal('delta');
      expect(s.entry_url).to.equal('https://a.example/');
    });

    it('keeps the fields of a state stored before it knew event ids when a tie comes', () => {
      const s = emptySession(events[1]!);
      applyEvent(s, events[1]!, 1);
      s.seen = s.seen.filter((x) => !x.startsWith('^'));
      applyEvent(s, at('a0', 1000, { url: 'https://a.example/tie', utm: utm('tie') }), 2);
      expect(s.entry_url).to.equal('https://a.example/first');
      applyEvent(s, at('a1', 999, { url: 'https://a.example/earlier' }), 3);
      expect(s.entry_url).to.equal('https://a.example/earlier');
    });
  });
});
