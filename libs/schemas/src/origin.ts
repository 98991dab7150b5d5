/**
 * The canonical form of an origin (RFC 6454 serialisation): lowercase scheme and host, default
 * port dropped, no path. Returns null when `value` is not an http(s) origin.
 */
export function normalizeOrigin(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return url.origin;
}

const LOOPBACK_HOSTS = /^(localhost|.*\.localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** Origins on localhost and loopback addresses count as verified (DESIGN.md, Projects). */
export function isLoopbackOrigin(origin: string): boolean {
  try {
    return LOOPBACK_HOSTS.test(new URL(origin).hostname);
  } catch {
    return false;
  }
}
