/** The project every benchmark run registers and posts to. */
export const BENCH_ORIGIN = 'https://bench.example';
export const BENCH_PROJECT = 'bench/web';

/**
 * What a tracker sends for a click on a pricing page: page URL and referrer (so the enricher's
 * URL, UTM and referrer steps do real work), a session id from a pool (so the sessionizer sees
 * sessions of a realistic length and Kafka spreads keys over partitions), and a payload of
 * about 300 bytes of JSON.
 */
export function benchEvent(sessionIndex: number, now: number): Record<string, unknown> {
  return {
    project: BENCH_PROJECT,
    origin: BENCH_ORIGIN,
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
export function benchEventBody(sessionIndex: number, now: number): string {
  return JSON.stringify(benchEvent(sessionIndex, now));
}

/** The JSON body of one /v1/event/batch request: `count` events of one session, as the logger sends. */
export function benchBatchBody(sessionIndex: number, now: number, count: number): string {
  return JSON.stringify({ events: Array.from({ length: count }, () => benchEvent(sessionIndex, now)) });
}
