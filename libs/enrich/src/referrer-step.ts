/**
 * Schemes a real referrer can have. `android-app:` is what Chrome on Android reports for
 * links opened from an app (Gmail, Slack…), which is worth keeping as a traffic source.
 */
const REFERRER_SCHEMES = new Set(['http:', 'https:', 'android-app:']);

function hostOf(url: string | null): string | null {
  if (url === null) return null;
  try {
    const { hostname } = new URL(url);
    return hostname === '' ? null : hostname;
  } catch {
    return null;
  }
}

/**
 * The referrer to store: null when empty, not an absolute URL of a referrer scheme, or a
 * self-referral (navigation inside the site). The comparison is on host name, not the full
 * origin, so an http→https redirect or a port change inside the same site does not make the
 * site its own traffic source. Otherwise the full referrer is kept as sent.
 *
 * `pageUrl` is the resolved page URL (url-step); without one, the project origin stands in.
 */
export function normaliseReferrer(referrer: string | null, pageUrl: string | null, origin: string): string | null {
  const raw = referrer?.trim() ?? '';
  if (raw === '') return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    return null;
  }
  if (!REFERRER_SCHEMES.has(parsed.protocol) || parsed.hostname === '') return null;
  const siteHost = hostOf(pageUrl) ?? hostOf(origin);
  if (siteHost !== null && parsed.hostname === siteHost) return null;
  return raw;
}
