import type { Utm } from '@spoor/schemas';

/** Bounds on what one event's query string may add to storage and to session summaries. */
export const MAX_QUERY_KEYS = 50;
export const MAX_QUERY_TEXT = 256;

export interface UrlFields {
  /** The page URL: as sent when absolute http(s), resolved when relative, else null. */
  url: string | null;
  path: string | null;
  query: Record<string, string>;
  utm: Utm;
}

export const EMPTY_UTM: Utm = Object.freeze({ source: null, medium: null, campaign: null, term: null, content: null });
const NO_URL: UrlFields = Object.freeze({ url: null, path: null, query: Object.freeze({}), utm: EMPTY_UTM });

const WEB_SCHEMES = new Set(['http:', 'https:']);

function tryUrl(input: string, base?: string): URL | null {
  try {
    return new URL(input, base);
  } catch {
    return null;
  }
}

/**
 * Only http(s) pages count. Other schemes are dropped, not stored: a `javascript:` URL kept
 * as the entry URL of a session is an XSS waiting for a dashboard to render it as a link.
 * A path-relative URL ("/pricing", sent by server-side loggers) is resolved against the
 * project origin; bare words ("pricing", "%%%") are too ambiguous to guess at.
 */
export function resolvePageUrl(url: string | null, origin: string): { href: string; parsed: URL } | null {
  const raw = url?.trim() ?? '';
  if (raw === '') return null;
  const absolute = tryUrl(raw);
  if (absolute !== null) return WEB_SCHEMES.has(absolute.protocol) ? { href: raw, parsed: absolute } : null;
  if (!raw.startsWith('/')) return null;
  const relative = tryUrl(raw, origin);
  return relative !== null && WEB_SCHEMES.has(relative.protocol) ? { href: relative.href, parsed: relative } : null;
}

/** Cuts to MAX_QUERY_TEXT UTF-16 units without leaving half a surrogate pair behind. */
export function capText(text: string): string {
  if (text.length <= MAX_QUERY_TEXT) return text;
  const cut = text.slice(0, MAX_QUERY_TEXT);
  return /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/**
 * Query parameters as {name: value}. The first value of a repeated name wins, as in most
 * analytics tools; URLSearchParams has already percent-decoded and never throws on bad
 * `%` sequences. Object.fromEntries defines own properties, so `__proto__` is a plain key.
 */
export function queryObject(params: URLSearchParams): Record<string, string> {
  const kept = new Map<string, string>();
  for (const [name, value] of params) {
    const key = capText(name);
    if (kept.has(key)) continue;
    kept.set(key, capText(value));
    if (kept.size >= MAX_QUERY_KEYS) break;
  }
  return Object.fromEntries(kept);
}

/** Campaign tags; an empty `utm_source=` counts as absent. */
export function utmFields(params: URLSearchParams): Utm {
  const read = (name: string): string | null => {
    const value = params.get(`utm_${name}`);
    return value === null || value === '' ? null : capText(value);
  };
  return {
    source: read('source'),
    medium: read('medium'),
    campaign: read('campaign'),
    term: read('term'),
    content: read('content'),
  };
}

export function parsePageUrl(url: string | null, origin: string): UrlFields {
  const page = resolvePageUrl(url, origin);
  if (page === null) return NO_URL;
  const params = page.parsed.searchParams;
  return {
    url: page.href,
    // Kept percent-encoded as the URL parser gives it: decoding can throw on `%` garbage
    // and would make "/a%2Fb" and "/a/b" the same path.
    path: page.parsed.pathname,
    query: queryObject(params),
    utm: utmFields(params),
  };
}
