// What a visitor does next: a first-order Markov chain over the read benchmark's eight actions
// (bench/read/visitor-profiles.ts), so sessions read like real ones (a page view, a scroll, a
// click, another page; add_to_cart mostly followed by checkout) and the transition matrix has
// the skew a real site's has rather than one uniform 8 x 8 block. Session lengths are drawn
// apart from the chain: a share of bounces, then a geometric tail, about 10 events on average.
import type { SeededRandom } from '../read/seeded-random.js';

type Next = ReadonlyArray<{ action: string; weight: number }>;

const FOLLOWERS: Record<string, Next> = {
  pageview: [
    { action: 'scroll', weight: 35 },
    { action: 'click', weight: 30 },
    { action: 'pageview', weight: 20 },
    { action: 'add_to_cart', weight: 5 },
    { action: 'form_submit', weight: 4 },
    { action: 'signup', weight: 3 },
    { action: 'js_error', weight: 3 },
  ],
  scroll: [
    { action: 'click', weight: 35 },
    { action: 'pageview', weight: 30 },
    { action: 'scroll', weight: 25 },
    { action: 'form_submit', weight: 4 },
    { action: 'add_to_cart', weight: 4 },
    { action: 'js_error', weight: 2 },
  ],
  click: [
    { action: 'pageview', weight: 40 },
    { action: 'click', weight: 20 },
    { action: 'scroll', weight: 15 },
    { action: 'add_to_cart', weight: 10 },
    { action: 'form_submit', weight: 8 },
    { action: 'signup', weight: 5 },
    { action: 'js_error', weight: 2 },
  ],
  form_submit: [
    { action: 'pageview', weight: 60 },
    { action: 'click', weight: 20 },
    { action: 'signup', weight: 15 },
    { action: 'js_error', weight: 5 },
  ],
  add_to_cart: [
    { action: 'checkout', weight: 40 },
    { action: 'pageview', weight: 30 },
    { action: 'click', weight: 20 },
    { action: 'add_to_cart', weight: 10 },
  ],
  checkout: [
    { action: 'pageview', weight: 70 },
    { action: 'click', weight: 30 },
  ],
  signup: [
    { action: 'pageview', weight: 80 },
    { action: 'click', weight: 20 },
  ],
  js_error: [
    { action: 'pageview', weight: 40 },
    { action: 'click', weight: 40 },
    { action: 'scroll', weight: 20 },
  ],
};
const TOTALS: Record<string, number> = Object.fromEntries(
  Object.entries(FOLLOWERS).map(([a, next]) => [a, next.reduce((n, x) => n + x.weight, 0)]),
);

/** The tracker's first event of a session is always a page view. */
export const FIRST_ACTION = 'pageview';

export function nextAction(rng: SeededRandom, current: string): string {
  const next = FOLLOWERS[current];
  if (!next) throw new Error(`no followers for action ${current}`);
  return rng.weighted(next, TOTALS[current]!).action;
}

const BOUNCE_SHARE = 0.3;
/** 2 + a geometric number of further events with this mean: 0.3 x 1 + 0.7 x 13.86 ≈ 10 events per session. */
const TAIL_MEAN = 11.86;
const TAIL_P = 1 / (TAIL_MEAN + 1);
/** One runaway session stays bounded (and a session's events fit one load chunk). */
const MAX_EVENTS = 500;

export function sessionLength(rng: SeededRandom): number {
  if (rng.next() < BOUNCE_SHARE) return 1;
  // Inverse transform of the geometric distribution; 1 - next() is in (0, 1], so the log is finite.
  const tail = Math.floor(Math.log(1 - rng.next()) / Math.log(1 - TAIL_P));
  return Math.min(MAX_EVENTS, 2 + tail);
}

/** Sessions per event the lengths above give on average: the load's start-time spacing. */
export const MEAN_SESSION_EVENTS = BOUNCE_SHARE + (1 - BOUNCE_SHARE) * (2 + TAIL_MEAN);
