import { expect } from 'chai';
import type { EnrichedEvent } from '@spoor/schemas';
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
    expect(s.seen).to.have.length(SEEN_LIMIT);
    // The latest are still caught as repeats.
    expect(applyEvent(s, ev(`e${5 * SEEN_LIMIT - 1}`, 1, 'click'), 99)).to.equal(false);
  });

  it('keeps the replay mark first in seen, apart from the bounded hashes', () => {
    const s = emptySession(base);
    expect(markOf(s)).to.equal(null);
    setMark(s, { source: 'spoor.events.raw/3', offset: 41 });
    for (let i = 0; i < 2 * SEEN_LIMIT; i++) applyEvent(s, ev(`e${i}`, 1000 + i, 'click'), i);
    setMark(s, { source: 'spoor.events.raw/3', offset: 9_007_199_254 });
    expect(s.seen).to.have.length(SEEN_LIMIT + 1);
    expect(markOf(s)).to.deep.equal({ source: 'spoor.events.raw/3', offset: 9_007_199_254 });
    const mark = markOf(s);
    expect(appliedBefore(mark, 'spoor.events.raw/3', 9_007_199_254)).to.equal(true);
    expect(appliedBefore(mark, 'spoor.events.raw/3', 9_007_199_255)).to.equal(false);
    // Another topic or partition is another sequence: never compared.
    expect(appliedBefore(mark, 'spoor.events.raw/4', 1)).to.equal(false);
    expect(appliedBefore(mark, 'spoor.events.enriched/3', 1)).to.equal(false);
  });
});
