import type { components } from '@spoor/client';
import { h } from './dom-builder.js';
import { formatDuration, formatTime } from './display-format.js';

type EnrichedEvent = components['schemas']['EnrichedEvent'];

const joined = (...parts: (string | null | undefined)[]): string => parts.filter(Boolean).join(' ');

/** What the enricher added to an event, in words. */
function enrichment(e: EnrichedEvent): string[] {
  const utm = Object.entries(e.utm)
    .filter(([, v]) => v)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  return [
    joined(e.browser.name, e.browser.version) && `Browser: ${joined(e.browser.name, e.browser.version)}`,
    joined(e.os.name, e.os.version) && `OS: ${joined(e.os.name, e.os.version)}`,
    `Device: ${joined(e.device.type ?? 'desktop', e.device.vendor, e.device.model)}`,
    joined(e.geo.city, e.geo.region, e.geo.country) && `Location: ${joined(e.geo.city, e.geo.region, e.geo.country)}`,
    `IP: ${e.ip}`,
    e.referrer ? `Referrer: ${e.referrer}` : '',
    utm ? `UTM: ${utm}` : '',
    e.bot ? 'Bot' : '',
  ].filter(Boolean);
}

/** One step of the story: when (after the start), what, where, and its payload. */
function step(e: EnrichedEvent, start: number): HTMLElement {
  const payload = Object.keys(e.payload).length ? JSON.stringify(e.payload) : '';
  return h(
    'li',
    { class: 'step' },
    h(
      'div',
      { class: 'step-head' },
      h('span', { class: 'offset' }, `+${formatDuration(e.timestamp - start)}`),
      h('strong', { class: 'action' }, e.action),
      h('span', { class: 'muted' }, e.path ?? e.url ?? ''),
    ),
    h('div', { class: 'muted small' }, formatTime(e.timestamp)),
    payload ? h('code', { class: 'payload' }, payload) : null,
    h(
      'details',
      {},
      h('summary', {}, 'Enrichment'),
      h(
        'ul',
        {},
        enrichment(e).map((line) => h('li', {}, line)),
      ),
    ),
  );
}

/** A session's events in order, read like a story. */
export function sessionTimeline(events: EnrichedEvent[]): HTMLElement {
  const start = events[0]?.timestamp ?? 0;
  return h(
    'ol',
    { class: 'timeline', 'aria-label': 'Events in order' },
    events.map((e) => step(e, start)),
  );
}
