/** The project every benchmark run registers and posts to. */
export const BENCH_ORIGIN = 'https://bench.example';
export const BENCH_PROJECT = 'bench/web';

/** The project an event names: the bench project unless a run registered its own. */
export interface EventTarget {
  origin: string;
  project: string;
}

const BENCH_TARGET: EventTarget = { origin: BENCH_ORIGIN, project: BENCH_PROJECT };

/**
 * A desktop Chrome: without a user agent the enricher flags every event as a bot and the
 * sessionizer skips it, which would measure a pipeline doing less than real traffic makes it do.
 */
export const USER_AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

/**
 * What a tracker sends for a click on a pricing page: page URL and referrer (so the enricher's
 * URL, UTM and referrer steps do real work), a session id from a pool (so the sessionizer sees
 * sessions of a realistic length and Kafka spreads keys over partitions), and a payload of
 * about 300 bytes of JSON.
 */
export function benchEvent(
  sessionIndex: number,
  now: number,
  target: EventTarget = BENCH_TARGET,
): Record<string, unknown> {
  return {
    project: target.project,
    origin: target.origin,
    action: 'click',
    timestamp: now,
    session_id: `bench-s-${sessionIndex}`,
    url: 'https://bench.example/pricing?plan=team&utm_source=newsletter&utm_medium=email&utm_campaign=spring',
    referrer: 'https://news.example.org/article/42',
    payload: {
      element: 'button#start-trial',
      text: 'Start your free trial',
      page: { path: '/pricing', title: 'Pricing - Bench Example' },
      viewport: { width: 1440, height: 900, dpr: 2 },
      experiment: { id: 'pricing-layout-2025', variant: 'B' },
      plan: 'team',
      seats: 12,
      position: { x: 812, y: 436 },
      locale: 'en-GB',
      tz: 'Europe/London',
      scroll_depth: 0.64,
    },
  };
}

/** The JSON body of one request. */
export function benchEventBody(sessionIndex: number, now: number, target: EventTarget = BENCH_TARGET): string {
  return JSON.stringify(benchEvent(sessionIndex, now, target));
}

/** The JSON body of one /v1/event/batch request: `count` events of one session, as the logger sends. */
export function benchBatchBody(
  sessionIndex: number,
  now: number,
  count: number,
  target: EventTarget = BENCH_TARGET,
): string {
  return JSON.stringify({ events: Array.from({ length: count }, () => benchEvent(sessionIndex, now, target)) });
}
