import { describeElement } from './element-description.js';

type Track = (action: string, payload: Record<string, unknown>, referrer?: string) => void;

/** Clicks anywhere on the page, in the capture phase so handlers that stop propagation do not hide them. */
export function captureClicks(track: Track): void {
  document.addEventListener(
    'click',
    (e) => {
      if (e.target instanceof Element) track('click', describeElement(e.target));
    },
    true,
  );
}

/**
 * A `pageview` for the first page and each single-page-app navigation: pushState and
 * replaceState (wrapped; run after the app's own code so the title has a chance to change),
 * popstate and hashchange. The referrer of an in-app navigation is the previous URL.
 */
export function captureNavigation(track: Track, beforePage: () => void): void {
  let last = '';
  const page = () => {
    const url = location.href;
    if (url === last) return;
    beforePage();
    const referrer = last || document.referrer;
    last = url;
    track('pageview', { title: document.title }, referrer || undefined);
  };
  for (const name of ['pushState', 'replaceState'] as const) {
    const original = history[name];
    history[name] = function (this: History, ...args: Parameters<History['pushState']>) {
      original.apply(this, args);
      setTimeout(page);
    };
  }
  addEventListener('popstate', page);
  addEventListener('hashchange', page);
  if (document.readyState === 'loading') addEventListener('DOMContentLoaded', page);
  else page();
}

/**
 * The deepest point of the page the visitor scrolled to, in percent of its height, measured at
 * most every 200 ms and sent once per page (on leaving it) if the visitor scrolled at all.
 */
export function scrollDepth(track: Track): { report(): void; newPage(): void } {
  let max = 0;
  let sent = 0;
  let timer: ReturnType<typeof setTimeout> | 0 = 0;
  const measure = () => {
    timer = 0;
    const height = document.documentElement.scrollHeight;
    max = Math.max(max, Math.min(100, Math.round(((scrollY + innerHeight) / Math.max(height, 1)) * 100)));
  };
  addEventListener(
    'scroll',
    () => {
      timer ||= setTimeout(measure, 200);
    },
    { passive: true },
  );
  const report = () => {
    if (timer) {
      clearTimeout(timer);
      measure();
    }
    if (max > sent) track('scroll', { depth: (sent = max) });
  };
  return {
    /** The tab is hidden: send what is new; a return to the page can only deepen it. */
    report,
    newPage() {
      report();
      max = sent = 0;
    },
  };
}
