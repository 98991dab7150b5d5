// The 50 classification rules the benchmark's projects hold: the kinds a site owner writes
// (DESIGN.md, Rules) — engagement and duration thresholds, page depth, actions and their
// combinations, geography, client, entry page, acquisition — as JSONLogic over the session
// summary. Most are selective, a few match most sessions; 35 carry a tag and 21 a label, so
// verdicts and tag facts have realistic sizes (9.8 rules and 6.6 tag facts per session).
import type { RuleRecord } from '@spoor/schemas';

type Logic = Record<string, unknown>;
interface RuleSpec {
  logic: Logic;
  tags?: string[];
  label?: string;
}

const v = (path: string) => ({ var: path });
const atLeast = (path: string, n: number): Logic => ({ '>=': [v(path), n] });
const did = (action: string): Logic => ({ '>': [v(`actions.${action}`), 0] });
const is = (path: string, value: unknown): Logic => ({ '==': [v(path), value] });
const oneOf = (path: string, values: unknown[]): Logic => ({ in: [v(path), values] });
/** Substring test: `in` with a string as its second argument. */
const contains = (path: string, text: string): Logic => ({ in: [text, v(path)] });
const and = (...parts: Logic[]): Logic => ({ and: parts });
const or = (...parts: Logic[]): Logic => ({ or: parts });

const EU = ['DE', 'FR', 'NL', 'ES', 'IT', 'PL', 'SE', 'AT', 'BE', 'IE'];

const SPECS: RuleSpec[] = [
  // Engagement and duration.
  { logic: atLeast('event_count', 3), tags: ['active'] },
  { logic: atLeast('event_count', 8), tags: ['engaged'], label: 'Engaged' },
  { logic: atLeast('event_count', 20), tags: ['power-user'], label: 'Power user' },
  { logic: atLeast('event_count', 40) },
  { logic: and(is('event_count', 1), is('page_count', 1)), tags: ['bounce'], label: 'Bounced' },
  { logic: atLeast('duration_ms', 30_000) },
  { logic: atLeast('duration_ms', 120_000), tags: ['stayed-2m'] },
  { logic: atLeast('duration_ms', 600_000), label: 'Long visit' },
  { logic: atLeast('duration_ms', 1_800_000), tags: ['marathon'] },
  {
    logic: and({ '<': [v('duration_ms'), 30_000] }, atLeast('event_count', 2)),
    tags: ['too-fast'],
    label: 'Suspiciously fast',
  },
  // Page depth.
  { logic: atLeast('page_count', 2) },
  { logic: atLeast('page_count', 5), tags: ['deep-visit'] },
  { logic: { '<=': [3, v('page_count'), 6] }, label: 'Browsing' },
  { logic: and(atLeast('page_count', 6), { '<': [v('duration_ms'), 600_000] }), tags: ['skimmer'] },
  // Actions.
  { logic: did('signup'), tags: ['signed-up'], label: 'Signup' },
  { logic: did('checkout'), tags: ['customer'], label: 'Customer' },
  { logic: did('add_to_cart'), tags: ['shopper'] },
  { logic: and(did('add_to_cart'), { '!': v('actions.checkout') }), tags: ['abandoned-cart'], label: 'Abandoned cart' },
  { logic: did('form_submit') },
  { logic: atLeast('actions.js_error', 1), tags: ['saw-error'] },
  { logic: atLeast('actions.js_error', 3), tags: ['broken'], label: 'Error storm' },
  { logic: { '>=': [{ '+': [v('actions.click'), v('actions.scroll')] }, 15] }, tags: ['interactive'] },
  { logic: and(atLeast('actions.scroll', 3), { '<': [v('actions.click'), 3] }), label: 'Reader' },
  { logic: and(did('form_submit'), did('signup'), did('checkout')), tags: ['full-funnel'], label: 'Full funnel' },
  // Geography.
  { logic: oneOf('geo.country', EU), tags: ['eu'] },
  { logic: is('geo.country', 'US'), tags: ['us'] },
  { logic: oneOf('geo.country', ['JP', 'IN']), label: 'APAC' },
  { logic: { '!': v('geo.country') }, tags: ['geo-unknown'] },
  { logic: and(is('geo.country', 'DE'), is('geo.city', 'Berlin')) },
  { logic: and(oneOf('geo.country', EU), did('checkout')), tags: ['eu-customer'], label: 'EU customer' },
  // Client.
  { logic: is('browser.name', 'Safari') },
  { logic: oneOf('browser.name', ['Chrome', 'Edge']), tags: ['chromium'] },
  { logic: is('device.type', 'mobile'), tags: ['mobile'], label: 'Mobile' },
  { logic: and(is('os.name', 'Windows'), is('browser.name', 'Edge')) },
  { logic: and(is('device.type', 'mobile'), atLeast('page_count', 4)), tags: ['mobile-engaged'] },
  // Entry page.
  { logic: contains('entry_url', '/pricing'), tags: ['pricing-entry'], label: 'Pricing lander' },
  { logic: contains('entry_url', '/blog/'), tags: ['content'] },
  { logic: contains('entry_url', '/docs/') },
  { logic: oneOf('entry_url', ['https://acme.example/', 'https://acme.example/features']), label: 'Home lander' },
  { logic: and(contains('entry_url', '/checkout'), { '<': [v('event_count'), 3] }), tags: ['direct-checkout'] },
  { logic: or(contains('entry_url', '/cart'), contains('entry_url', '/product/')), tags: ['shop-entry'] },
  // Acquisition.
  { logic: { '!!': v('utm.campaign') }, tags: ['campaign'] },
  { logic: is('utm.medium', 'cpc'), tags: ['paid'], label: 'Paid' },
  { logic: is('utm.source', 'newsletter') },
  { logic: contains('referrer', 'google.'), tags: ['search'] },
  { logic: oneOf('referrer', ['https://news.ycombinator.com/', 'https://t.co/']), tags: ['social'], label: 'Social' },
  { logic: and({ '!': v('referrer') }, { '!': v('utm.source') }), tags: ['direct'] },
  // Mixed.
  { logic: and(is('utm.medium', 'cpc'), did('signup')), tags: ['paid-signup'], label: 'Paid signup' },
  { logic: or(did('checkout'), and(did('signup'), atLeast('duration_ms', 300_000))), tags: ['high-value'] },
  {
    logic: { if: [is('device.type', 'mobile'), atLeast('page_count', 3), atLeast('page_count', 6)] },
    label: 'Explorer',
  },
];

/** The catalogue as version-1 enabled rules of `projectId`, saved through `store.rules.put`. */
export function ruleCatalogue(projectId: string, now: number): RuleRecord[] {
  if (SPECS.length !== 50) throw new Error(`rule catalogue: expected 50 rules, found ${SPECS.length}`);
  return SPECS.map((spec, i) => ({
    project_id: projectId,
    rule_id: `rule-${String(i + 1).padStart(2, '0')}`,
    version: 1,
    kind: 'classification',
    logic: spec.logic,
    tags: spec.tags ?? [],
    label: spec.label ?? null,
    attribute: null,
    value: null,
    description: null,
    enabled: true,
    created_at: now,
    updated_at: now,
    updated_by: 'bench-classify',
  }));
}
