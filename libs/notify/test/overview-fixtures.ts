import type { Overview, RankedCount } from '@spoor/schemas';

/** 21 Nov 2026 00:00 UTC. */
export const WINDOW_START = Date.UTC(2026, 10, 21);
export const DAY = 86_400_000;

const rows = (...pairs: Array<[string, number]>): RankedCount[] => pairs.map(([name, count]) => ({ name, count }));

/** A busy day of the "web" project: every list filled, seven actions (two past the top 5). */
export function overview(over: Partial<Overview> = {}): Overview {
  return {
    origin: 'https://acme.example',
    project: 'web',
    window_start: WINDOW_START,
    window_end: WINDOW_START + DAY,
    created_at: WINDOW_START + DAY + 60_000,
    job_id: 'job-1',
    events: 12_345,
    sessions: 321,
    visitors: 210,
    bounce_rate: 0.4237,
    duration_ms: { p50: 65_000, p90: 412_000, p99: 4_000_000 },
    actions: rows(
      ['pageview', 812],
      ['click', 300],
      ['signup', 40],
      ['checkout', 14],
      ['share', 9],
      ['rage_click', 3],
      ['zzz_seventh', 1],
    ),
    pages: rows(['/pricing', 100], ['/', 90]),
    referrers: rows(['https://search.example/', 50], ['', 30]),
    utm_sources: rows(['newsletter', 20]),
    countries: rows(['DE', 120], ['FR', 60]),
    browsers: rows(['Firefox', 150]),
    devices: rows(['desktop', 200], ['mobile', 121]),
    tags: rows(['checkout', 14]),
    bucket_ms: 900_000,
    series: [{ start: WINDOW_START, events: 12_345, visitors: 210, sessions: 321 }],
    ...over,
  };
}

/** A window nothing happened in. */
export function emptyOverview(over: Partial<Overview> = {}): Overview {
  return overview({
    events: 0,
    sessions: 0,
    visitors: 0,
    bounce_rate: 0,
    duration_ms: { p50: 0, p90: 0, p99: 0 },
    actions: [],
    pages: [],
    referrers: [],
    utm_sources: [],
    countries: [],
    browsers: [],
    devices: [],
    tags: [],
    series: [],
    ...over,
  });
}
