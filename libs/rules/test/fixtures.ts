import type { EnrichedEvent, RuleRecord, SessionSummary } from '@spoor/schemas';
import type { CompilableRule } from '../src/index.js';

export const rule = (over: Partial<CompilableRule> & { rule_id: string }): CompilableRule => ({
  kind: 'classification',
  logic: true,
  tags: [],
  label: null,
  attribute: null,
  value: null,
  enabled: true,
  ...over,
});

/** A stored rule (the store's RuleRecord) of project `p`, version 1. */
export const ruleRecord = (over: Partial<RuleRecord> & { rule_id: string }): RuleRecord => ({
  ...rule(over),
  project_id: 'p',
  version: 1,
  description: null,
  created_at: 0,
  updated_at: 0,
  updated_by: 'a',
  ...over,
});

export const attributeRule = (rule_id: string, logic: unknown, attribute: string, value: unknown): CompilableRule =>
  rule({ rule_id, kind: 'attribute', logic, attribute, value });

const T0 = 1_732_262_400_000;

/** A session summary as the sessionizer publishes it: a German Firefox visitor who signed up. */
export function summary(over: Partial<SessionSummary> = {}): SessionSummary {
  return {
    session_id: 's-1',
    project_id: 'p-1',
    first_event_at: T0,
    last_event_at: T0 + 90_000,
    duration_ms: 90_000,
    event_count: 6,
    actions: { pageview: 4, signup: 1, click: 1 },
    entry_url: 'https://acme.example/pricing',
    exit_url: 'https://acme.example/welcome',
    page_count: 4,
    referrer: 'https://search.example/',
    utm: { source: 'newsletter', medium: 'email', campaign: 'spring', term: null, content: null },
    browser: { name: 'Firefox', version: '128.0' },
    os: { name: 'Linux', version: null },
    device: { type: 'desktop', vendor: null, model: null },
    geo: { country: 'DE', region: 'BE', city: 'Berlin', latitude: null, longitude: null },
    attributes: { plan: 'pro' },
    tags: [],
    classification: null,
    updated_at: T0 + 90_000,
    ...over,
  };
}

/** An enriched event of that session. */
export function event(action: string, payload: Record<string, unknown>, timestamp = T0): EnrichedEvent {
  return {
    event_id: `e-${action}-${timestamp}`,
    project_id: 'p-1',
    project: 'web',
    origin: 'https://acme.example',
    action,
    timestamp,
    client_timestamp: timestamp,
    sent_at: null,
    received_at: timestamp,
    payload,
    session_id: 's-1',
    url: 'https://acme.example/signup',
    referrer: null,
    ip: '203.0.113.0',
    user_agent: 'Mozilla/5.0',
    geo: { country: 'DE', region: null, city: null, latitude: null, longitude: null },
    browser: { name: 'Firefox', version: '128.0' },
    os: { name: 'Linux', version: null },
    device: { type: 'desktop', vendor: null, model: null },
    bot: false,
    path: '/signup',
    query: {},
    utm: { source: null, medium: null, campaign: null, term: null, content: null },
  };
}

/** The loose record type the engine takes (it reads whatever the rules name). */
export const data = (value: object): Record<string, unknown> => value as Record<string, unknown>;
