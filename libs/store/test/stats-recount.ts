// The stats query recounted in JS from the seeded events, sessions and tags: the contract's
// expected answers (docs/analytics.md, Stats query, says what each figure means).
import { PAGE_VIEW_ACTIONS, type EnrichedEvent, type SessionState, type StatsPredicate } from '@spoor/schemas';
import type { StatsRows, StatsSpec } from '../src/index.js';

export interface Seeded {
  events: EnrichedEvent[];
  sessions: SessionState[];
  /** Standing tags per session id. */
  tags: Map<string, string[]>;
}

type Value = string | null;

const pagePath = (url: string | null) =>
  url === null ? null : (/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*([^?#]*)/.exec(url)?.[1] ?? '') || '/';
const host = (r: string | null) => (r === null ? null : (/^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#:]+)/.exec(r)?.[1] ?? r));

function sessionValue(s: SessionState | undefined, d: string): Value {
  if (!s) return null;
  const v: Record<string, Value> = {
    entry_page: pagePath(s.entry_url),
    exit_page: pagePath(s.exit_url),
    referrer: host(s.referrer),
    utm_source: s.utm.source,
    utm_medium: s.utm.medium,
    utm_campaign: s.utm.campaign,
    utm_term: s.utm.term,
    utm_content: s.utm.content,
    country: s.geo.country,
    region: s.geo.region,
    city: s.geo.city,
    browser: s.browser.name,
    os: s.os.name,
    device: s.device.type ?? 'desktop',
  };
  return v[d] ?? null;
}

function eventValue(e: EnrichedEvent, d: string): Value {
  if (d === 'page') return PAGE_VIEW_ACTIONS.has(e.action) ? e.path : null;
  if (d === 'action') return e.action;
  let at: unknown = e.payload;
  for (const k of d.slice('payload:'.length).split('.'))
    at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[k] : undefined;
  return at === undefined || at === null ? null : typeof at === 'string' ? at : JSON.stringify(at);
}

const isEventDim = (d: string) => d === 'page' || d === 'action' || d.startsWith('payload:');

function holds(values: Value[], f: StatsPredicate): boolean {
  const one = (v: Value) =>
    v !== null &&
    (f.op === 'contains'
      ? f.values.some((x) => v.includes(x))
      : f.op === 'matches'
        ? f.values.some((x) => new RegExp(x, 'u').test(v))
        : f.values.includes(v));
  const any = values.some(one);
  return f.op === 'is_not' ? !any : any;
}

export function recount(data: Seeded, spec: StatsSpec): StatsRows {
  const { start, end } = spec.window;
  const inRange = data.events.filter((e) => !e.bot && e.timestamp >= start && e.timestamp < end);
  const byId = new Map(data.sessions.map((s) => [s.session_id, s]));
  const tagsOf = (id: string | null) => (id === null ? [] : (data.tags.get(id) ?? []));
  const eventHolds = (e: EnrichedEvent, f: StatsPredicate): boolean =>
    f.dimension === 'tag'
      ? holds(tagsOf(e.session_id), { ...f, op: f.op === 'is_not' ? 'is' : f.op }) !== (f.op === 'is_not')
      : isEventDim(f.dimension)
        ? holds([eventValue(e, f.dimension)], f)
        : e.session_id !== null && byId.has(e.session_id)
          ? holds([sessionValue(byId.get(e.session_id), f.dimension)], f)
          : f.op === 'is_not';
  const sessionHolds = (s: SessionState, f: StatsPredicate): boolean => {
    if (f.dimension === 'tag')
      return holds(tagsOf(s.session_id), { ...f, op: f.op === 'is_not' ? 'is' : f.op }) !== (f.op === 'is_not');
    if (!isEventDim(f.dimension)) return holds([sessionValue(s, f.dimension)], f);
    const positive = { ...f, op: f.op === 'is_not' ? ('is' as const) : f.op };
    const any = inRange.some((e) => e.session_id === s.session_id && holds([eventValue(e, f.dimension)], positive));
    return any !== (f.op === 'is_not');
  };
  const all = <T>(x: T, test: (x: T, f: StatsPredicate) => boolean) =>
    spec.filters.every((f) =>
      'and' in f ? f.and.every((p) => test(x, p)) : 'or' in f ? f.or.some((p) => test(x, p)) : test(x, f),
    );
  const events = inRange.filter((e) => all(e, eventHolds));
  const sessions = data.sessions.filter(
    (s) => s.last_event_at >= start && s.last_event_at < end && all(s, sessionHolds),
  );
  const bucket = (t: number) => Math.floor((t - start) / spec.bucketMs!);
  type Group = { dims: Array<string | number>; ev: EnrichedEvent[]; ss: SessionState[] };
  const groups = new Map<string, Group>();
  const add = (dims: Array<string | number | null>, put: (g: Group) => void) => {
    if (dims.some((d) => d === null || d === '')) return;
    const key = JSON.stringify(dims);
    if (!groups.has(key)) groups.set(key, { dims: dims as Array<string | number>, ev: [], ss: [] });
    put(groups.get(key)!);
  };
  /** Every combination of each dimension's values. */
  const combos = (lists: Array<Array<string | number | null>>): Array<Array<string | number | null>> =>
    lists.reduce<Array<Array<string | number | null>>>((acc, l) => acc.flatMap((a) => l.map((v) => [...a, v])), [[]]);
  for (const e of events) {
    const s = e.session_id === null ? undefined : byId.get(e.session_id);
    const lists = spec.dimensions.map((d) =>
      d.startsWith('time')
        ? [bucket(e.timestamp)]
        : d === 'tag'
          ? tagsOf(e.session_id)
          : isEventDim(d)
            ? [eventValue(e, d)]
            : [sessionValue(s, d)],
    );
    for (const dims of combos(lists)) add(dims, (g) => g.ev.push(e));
  }
  for (const s of sessions) {
    const mine = events.filter((e) => e.session_id === s.session_id);
    const eventDims = spec.dimensions.filter(isEventDim);
    const tuples = [...new Set(mine.map((e) => JSON.stringify(eventDims.map((d) => eventValue(e, d)))))].map(
      (t) => JSON.parse(t) as Value[],
    );
    const seen = new Set<string>();
    for (const tuple of eventDims.length ? tuples : [[]]) {
      const lists = spec.dimensions.map((d) =>
        d.startsWith('time')
          ? [bucket(s.last_event_at)]
          : d === 'tag'
            ? tagsOf(s.session_id)
            : isEventDim(d)
              ? [tuple[eventDims.indexOf(d)]!]
              : [sessionValue(s, d)],
      );
      for (const dims of combos(lists)) {
        const key = JSON.stringify(dims);
        if (seen.has(key)) continue;
        seen.add(key);
        add(dims, (g) => g.ss.push(s));
      }
    }
  }
  const wantEvents = spec.metrics.some((m) => ['visitors', 'events', 'pageviews'].includes(m));
  const wantSessions = spec.metrics.some((m) => !['visitors', 'events', 'pageviews'].includes(m));
  if (spec.dimensions.length === 0 && groups.size === 0) groups.set('[]', { dims: [], ev: [], ss: [] });
  const rows = [...groups.values()]
    .filter((g) => spec.dimensions.length === 0 || (wantEvents && g.ev.length) || (wantSessions && g.ss.length))
    .map((g) => ({ dimensions: g.dims, metrics: spec.metrics.map((m) => metric(m, g.ev, g.ss, spec, tagsOf)) }));
  const value = (r: (typeof rows)[number], name: string) => {
    const d = spec.dimensions.indexOf(name as never);
    return d >= 0 ? r.dimensions[d]! : r.metrics[spec.metrics.indexOf(name as never)]!;
  };
  const cmp = (a: string | number, b: string | number) =>
    typeof a === 'number' && typeof b === 'number'
      ? a - b
      : Buffer.compare(Buffer.from(String(a)), Buffer.from(String(b)));
  rows.sort((a, b) => {
    for (const [name, dir] of spec.orderBy) {
      const c = cmp(value(a, name), value(b, name));
      if (c !== 0) return dir === 'asc' ? c : -c;
    }
    for (let i = 0; i < spec.dimensions.length; i++) {
      const c = cmp(a.dimensions[i]!, b.dimensions[i]!);
      if (c !== 0) return c;
    }
    return 0;
  });
  return { total: rows.length, rows: rows.slice(spec.offset, spec.offset + spec.limit) };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const at = (s.length - 1) / 2;
  const lo = Math.floor(at);
  return Math.round(s[lo]! + (s[Math.ceil(at)]! - s[lo]!) * (at - lo));
}

function metric(
  m: string,
  ev: EnrichedEvent[],
  ss: SessionState[],
  spec: StatsSpec,
  tagsOf: (id: string) => string[],
): number {
  const n = ss.length;
  const share = (k: number) => (n === 0 ? 0 : k / n);
  const converted = ss.filter((s) =>
    spec.goal === null
      ? false
      : 'action' in spec.goal
        ? (s.actions[spec.goal.action] ?? 0) > 0
        : tagsOf(s.session_id).includes(spec.goal.tag),
  );
  switch (m) {
    case 'events':
      return ev.length;
    case 'pageviews':
      return ev.filter((e) => PAGE_VIEW_ACTIONS.has(e.action)).length;
    case 'visitors':
      return new Set(ev.map((e) => `${e.ip}\n${e.user_agent}`)).size;
    case 'sessions':
      return n;
    case 'bounce_rate':
      return share(ss.filter((s) => s.page_count <= 1).length);
    case 'visit_duration':
      return n === 0 ? 0 : median(ss.map((s) => s.duration_ms));
    case 'views_per_session':
      return share(ss.reduce((a, s) => a + s.page_count, 0));
    case 'conversions':
      return converted.length;
    default:
      return share(converted.length);
  }
}
