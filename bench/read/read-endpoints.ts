// The requests the benchmark times, and what one answer of each must look like given the data
// that was loaded: a fast wrong answer (an empty list, a 404 turned 200) must not pass as a result.
import { DAY_MS, type DatasetFacts } from './dataset-generator.js';

export interface ReadEndpoint {
  name: string;
  /** The route as the API document spells it, for the table. */
  route: string;
  /** Paths with query, cycled by every connection (session ids rotate this way). */
  paths: string[];
  /** Null when the body is what the dataset implies, else what is wrong. */
  check(body: unknown): string | null;
}

export interface EndpointContext {
  origin: string;
  project: string;
  facts: DatasetFacts;
  /** The dataset's end; the tag window is the 7 days before it. */
  endMs: number;
}

/** The only endpoint without authentication or store access: every ratio divides by it. */
export const BASELINE = 'healthz';

const SESSION_LIST_LIMIT = 1000;
/** GET /v1/tags/{tag} without `limit` (TagSessionsQuery's default). */
const TAG_LIST_DEFAULT_LIMIT = 100;

type Json = Record<string, unknown>;
const listOf = (body: unknown, key: string): Json[] | null => {
  const v = (body as Json | null)?.[key];
  return Array.isArray(v) ? (v as Json[]) : null;
};
const sortedBy = (items: Json[], key: string, dir: 1 | -1) =>
  items.every((x, i) => i === 0 || dir * ((x[key] as number) - (items[i - 1]![key] as number)) >= 0);

export function readEndpoints(ctx: EndpointContext): ReadEndpoint[] {
  const scope = new URLSearchParams({ origin: ctx.origin, project: ctx.project }).toString();
  const { facts } = ctx;
  const windowStart = ctx.endMs - 7 * DAY_MS;
  const vipInWindow = (facts.tagTimes['vip'] ?? []).filter((t) => t >= windowStart && t < ctx.endMs).length;
  const sample = facts.sessionSample;
  return [
    {
      name: BASELINE,
      route: 'GET /healthz',
      paths: ['/healthz'],
      check: (b) => ((b as Json).status === 'ok' ? null : `status is ${JSON.stringify((b as Json).status)}`),
    },
    {
      // A second reference: through express and the gateway's router like every read, but no
      // token check and no engine. /healthz asks the bus for consumer lag, which in Kafka mode is
      // four admin requests to the broker, so there it is no longer the cheapest handler.
      name: 'discovery',
      route: 'GET /.well-known/openid-configuration',
      paths: ['/.well-known/openid-configuration'],
      check: (b) => (typeof (b as Json).issuer === 'string' ? null : 'no issuer'),
    },
    {
      name: 'sessions',
      route: 'GET /v1/sessions?limit=1000',
      paths: [`/v1/sessions/?${scope}&limit=${SESSION_LIST_LIMIT}`],
      check: (b) => {
        const items = listOf(b, 'sessions');
        const want = Math.min(SESSION_LIST_LIMIT, facts.sessions);
        if (items?.length !== want) return `expected ${want} sessions, got ${items?.length}`;
        return sortedBy(items, 'last_event_at', -1) ? null : 'sessions are not newest first';
      },
    },
    {
      name: 'session-events',
      route: 'GET /v1/sessions/{id}/events',
      paths: sample.map((s) => `/v1/sessions/${encodeURIComponent(s.session_id)}/events?${scope}`),
      check: (b) => {
        const items = listOf(b, 'events');
        const want = sample[0]!;
        if (items?.length !== want.events) return `expected ${want.events} events, got ${items?.length}`;
        if (items.some((e) => e.session_id !== want.session_id)) return 'an event of another session';
        return sortedBy(items, 'timestamp', 1) ? null : 'events are not oldest first';
      },
    },
    {
      name: 'actions',
      route: 'GET /v1/events/actions',
      paths: [`/v1/events/actions?${scope}`],
      check: (b) => {
        const names = listOf(b, 'actions')
          ?.map((a) => a.action as string)
          .sort();
        return JSON.stringify(names) === JSON.stringify(facts.actions)
          ? null
          : `expected actions ${facts.actions.join(',')}, got ${names?.join(',')}`;
      },
    },
    {
      name: 'tag-vip-7d',
      route: 'GET /v1/tags/vip (7-day window)',
      paths: [`/v1/tags/vip?${scope}&window_start=${windowStart}&window_end=${ctx.endMs}`],
      check: (b) => {
        const items = listOf(b, 'sessions');
        const want = Math.min(TAG_LIST_DEFAULT_LIMIT, vipInWindow);
        if (items?.length !== want)
          return `expected ${want} sessions (${vipInWindow} tagged vip in the window), got ${items?.length}`;
        return items.every((s) => (s.tagged_at as number) >= windowStart && (s.tagged_at as number) < ctx.endMs)
          ? null
          : 'a session tagged outside the window';
      },
    },
  ];
}

/** Fetches the endpoint's first path once and throws, loudly, unless it is a 200 with the expected body. */
export async function checkEndpoint(baseUrl: string, token: string, ep: ReadEndpoint): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${baseUrl}${ep.paths[0]}`, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`${ep.route} answered ${res.status}: ${text.slice(0, 500)}`);
  const problem = ep.check(JSON.parse(text));
  if (problem) throw new Error(`${ep.route}: wrong body: ${problem}`);
  return ms;
}
