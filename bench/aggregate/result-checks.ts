// A fast wrong answer is no figure: after each mode's jobs, the overview and the transition
// matrix they stored are read back through the store and checked against what was loaded.
// Every event is inside the window and no event is a bot, so the figures are exact.
import { RECORD_KINDS, type Overview, type TransitionMatrix } from '@spoor/schemas';
import type { Store, Window } from '@spoor/store';
import { windowId } from '@spoor/worker';
import type { DatasetTally } from './event-generator.js';

function expectEqual(what: string, got: unknown, want: unknown, problems: string[]): void {
  if (JSON.stringify(got) !== JSON.stringify(want))
    problems.push(`${what}: got ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
}

const sortedCounts = (xs: Array<{ name: string; count: number }>) =>
  Object.fromEntries([...xs].sort((a, b) => (a.name < b.name ? -1 : 1)).map((x) => [x.name, x.count]));

export async function checkOverview(store: Store, projectId: string, w: Window, t: DatasetTally): Promise<Overview> {
  const record = await store.records.get<Overview>(RECORD_KINDS.overview, projectId, windowId(w));
  if (!record) throw new Error(`no overview stored for window ${windowId(w)}`);
  const o = record.data;
  const problems: string[] = [];
  expectEqual('overview events', o.events, t.events, problems);
  expectEqual('overview sessions', o.sessions, t.sessions, problems);
  expectEqual('overview bounce_rate', o.bounce_rate, Math.round((t.bounces / t.sessions) * 10_000) / 10_000, problems);
  expectEqual(
    'overview actions',
    sortedCounts(o.actions),
    sortedCounts(Object.entries(t.actions).map(([name, count]) => ({ name, count }))),
    problems,
  );
  // The time series splits the same events and sessions into buckets.
  expectEqual(
    'overview series events',
    o.series.reduce((n, b) => n + b.events, 0),
    t.events,
    problems,
  );
  expectEqual(
    'overview series sessions',
    o.series.reduce((n, b) => n + b.sessions, 0),
    t.sessions,
    problems,
  );
  // Visitors are distinct (ip, user agent) pairs: one per session but for rare IP collisions.
  if (o.visitors > t.sessions || o.visitors < t.sessions * 0.99)
    problems.push(`overview visitors ${o.visitors} for ${t.sessions} sessions`);
  if (o.tags.length !== 2) problems.push(`overview tags ${JSON.stringify(o.tags)}, expected vip and returning`);
  if (problems.length) throw new Error(`the aggregation's overview is wrong:\n  ${problems.join('\n  ')}`);
  return o;
}

export async function checkMatrix(
  store: Store,
  projectId: string,
  w: Window,
  t: DatasetTally,
): Promise<TransitionMatrix> {
  const record = await store.records.get<TransitionMatrix>(RECORD_KINDS.transitions, projectId, windowId(w));
  if (!record) throw new Error(`no transition matrix stored for window ${windowId(w)}`);
  const m = record.data;
  const problems: string[] = [];
  const total = (pred: (c: TransitionMatrix['transitions'][number]) => boolean) =>
    m.transitions.filter(pred).reduce((n, c) => n + c.count, 0);
  expectEqual('matrix sessions', m.sessions, t.sessions, problems);
  // Every event is entered once (from $start or its predecessor), and every session left once.
  expectEqual(
    'matrix transitions',
    total(() => true),
    t.events + t.sessions,
    problems,
  );
  expectEqual(
    'matrix transitions into $end',
    total((c) => c.to === '$end'),
    t.sessions,
    problems,
  );
  for (const [action, n] of Object.entries(t.actions))
    expectEqual(
      `matrix transitions into ${action}`,
      total((c) => c.to === action),
      n,
      problems,
    );
  if (problems.length) throw new Error(`the transitions job's matrix is wrong:\n  ${problems.join('\n  ')}`);
  return m;
}
