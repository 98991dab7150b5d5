// Builders for the contract's records: a complete, valid value with overrides.
import type {
  AccountRecord,
  ApiKeyRecord,
  EnrichedEvent,
  JobRecord,
  ProjectRecord,
  RawEvent,
  RuleRecord,
  SessionClassification,
  SessionState,
  SessionTag,
  SigningKeyRecord,
} from '@spoor/schemas';
import type { StatsSpec } from '../src/index.js';

export const T0 = 1_732_262_400_000;
export const INJECTION = `'; DROP TABLE x; --`;

export function raw(over: Partial<RawEvent> & { event_id: string }): RawEvent {
  return {
    project_id: 'p-a',
    project: 'acme/web',
    origin: 'https://acme.example',
    action: 'click',
    timestamp: T0,
    client_timestamp: T0,
    sent_at: null,
    received_at: T0 + 5,
    payload: { n: 1 },
    session_id: 's-1',
    url: 'https://acme.example/a?x=1',
    referrer: null,
    ip: '203.0.113.7',
    user_agent: 'Mozilla/5.0 (X11; Linux x86_64)',
    ...over,
  };
}

export function enriched(over: Partial<EnrichedEvent> & { event_id: string }): EnrichedEvent {
  const { session_id: _sid, ...base } = raw({ event_id: over.event_id });
  return {
    ...base,
    session_id: 's-1',
    geo: { country: 'DE', region: 'BE', city: 'Berlin', latitude: 52.52, longitude: 13.405 },
    browser: { name: 'Firefox', version: '133.0' },
    os: { name: 'Linux', version: null },
    device: { type: null, vendor: null, model: null },
    bot: false,
    path: '/a',
    query: { x: '1', empty: '' },
    utm: { source: 'news', medium: null, campaign: 'spring', term: null, content: null },
    ...over,
  };
}

export function session(over: Partial<SessionState> & { session_id: string }): SessionState {
  return {
    project_id: 'p-a',
    first_event_at: T0,
    last_event_at: T0 + 60_000,
    duration_ms: 60_000,
    event_count: 3,
    actions: { click: 2, view: 1 },
    entry_url: 'https://acme.example/',
    exit_url: 'https://acme.example/b',
    page_count: 2,
    referrer: null,
    utm: { source: null, medium: null, campaign: null, term: null, content: null },
    browser: { name: 'Firefox', version: '133.0' },
    os: { name: 'Linux', version: null },
    device: { type: 'desktop', vendor: null, model: null },
    geo: { country: null, region: null, city: null, latitude: null, longitude: null },
    attributes: { plan: 'pro', seats: 3, nested: { ok: true } },
    tags: ['buyer', 'returning'],
    classification: { rule_ids: ['r1'], labels: ['Buyer'] },
    seen: ['ab12', 'cd34'],
    updated_at: over.last_event_at ?? T0 + 60_000,
    ...over,
  };
}

export function project(over: Partial<ProjectRecord> & { project_id: string }): ProjectRecord {
  return {
    origin: 'https://acme.example',
    project: 'acme/web',
    account_id: 'acct-1',
    verified: false,
    verification_token: 'tok',
    created_at: T0,
    retention_days: null,
    ip_policy: null,
    ...over,
  };
}

/** A built-in account (issuer `spoor`, subject = account_id) unless overridden. */
export function account(over: Partial<AccountRecord> & { account_id: string }): AccountRecord {
  return {
    email: `${over.account_id}@acme.example`,
    password_hash: '$scrypt$n=16384,r=8,p=1$c2FsdA$aGFzaA',
    issuer: 'spoor',
    subject: over.account_id,
    created_at: T0,
    ...over,
  };
}

/** An account of an external OIDC issuer: no password, usually no email. */
export function externalAccount(over: Partial<AccountRecord> & { account_id: string; subject: string }): AccountRecord {
  return account({ email: null, password_hash: null, issuer: 'https://idp.example', ...over });
}

export function apiKey(over: Partial<ApiKeyRecord> & { api_key_name: string; key_hash: string }): ApiKeyRecord {
  return { account_id: 'acct-1', scope: 'full', created_at: T0, revoked_at: null, ...over };
}

export function signingKey(over: Partial<SigningKeyRecord> & { kid: string }): SigningKeyRecord {
  return {
    private_jwk: JSON.stringify({ kty: 'EC', crv: 'P-256', kid: over.kid, d: 'private' }),
    public_jwk: JSON.stringify({ kty: 'EC', crv: 'P-256', kid: over.kid, x: 'x', y: 'y' }),
    created_at: T0,
    ...over,
  };
}

/** A standing manual tag fact; changed_at defaults to tagged_at. */
export function tagFact(
  over: Partial<SessionTag> & { project_id: string; session_id: string; tag: string },
): SessionTag {
  const tagged_at = over.tagged_at ?? T0;
  return { source: 'manual', tagged_at, removed: false, changed_at: tagged_at, ...over };
}

/** Version 1 of an enabled classification rule unless overridden. */
export function rule(over: Partial<RuleRecord> & { rule_id: string }): RuleRecord {
  return {
    project_id: 'p-rules',
    version: 1,
    kind: 'classification',
    logic: { and: [{ '>=': [{ var: 'event_count' }, 3] }, { in: ['checkout', { var: 'actions_list' }] }] },
    tags: ['buyer'],
    label: 'Buyer',
    attribute: null,
    value: null,
    description: 'Sessions that checked out',
    enabled: true,
    created_at: T0,
    updated_at: T0 + (over.version ?? 1),
    updated_by: 'acct-1',
    ...over,
  };
}

export function classification(over: Partial<SessionClassification> & { session_id: string }): SessionClassification {
  return {
    project_id: 'p-class',
    rule_ids: ['r-buyer', 'r-vip'],
    labels: ['Buyer', 'VIP'],
    tags: [
      { rule_id: 'r-buyer', tag: 'buyer' },
      { rule_id: 'r-vip', tag: 'vip' },
    ],
    classified_at: T0,
    session_last_event_at: T0 - 1000,
    ...over,
  };
}

/** A queued job unless overridden. */
export function job(over: Partial<JobRecord> & { job_id: string }): JobRecord {
  return {
    account_id: 'acct-jobs',
    project_id: 'p-jobs',
    kind: 'backfill',
    status: 'queued',
    request: { project: 'acme/web', rules: ['r1'], window: { start: T0, end: null } },
    created_at: T0,
    started_at: null,
    finished_at: null,
    progress: null,
    result: null,
    error: null,
    attempts: 0,
    worker: null,
    updated_at: over.created_at ?? T0,
    ...over,
  };
}

/** A stats query (issue 44): no dimension, filter or goal, the first ten rows, unless `over` says. */
export function statsSpec(over: Partial<StatsSpec> & Pick<StatsSpec, 'window' | 'metrics'>): StatsSpec {
  return { dimensions: [], bucketMs: null, filters: [], goal: null, orderBy: [], limit: 10, offset: 0, ...over };
}
