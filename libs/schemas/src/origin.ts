/**
 * Answers already given, by input: ingest normalises the Origin header and the body's origin of
 * every request, and a WHATWG URL parse cost ~1.8 µs of its ~85 µs of CPU (issue 14). Inputs come
 * from the network, so the memory is bounded: it starts afresh when full.
 */
const normalized = new Map<string, string | null>();
const NORMALIZED_MAX = 1024;

/**
 * The canonical form of an origin (RFC 6454 serialisation): lowercase scheme and host, default
 * port dropped, no path. Returns null when `value` is not an http(s) origin.
 */
export function normalizeOrigin(value: string): string | null {
  let answer = normalized.get(value);
  if (answer === undefined) {
    answer = parseOrigin(value);
    if (normalized.size >= NORMALIZED_MAX) normalized.clear();
    normalized.set(value, answer);
  }
  return answer;
}

/** How many inputs normalizeOrigin remembers now: never more than 1,024, whatever the network sends. */
export function rememberedOrigins(): number {
  return normalized.size;
}

function parseOrigin(value: string): string | null {
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

/**
 * Whether a project's raw and enriched events may be read (the DNS gate): its domain verified,
 * or an origin on localhost or a loopback address, which counts as verified.
 */
export function isVerifiedProject(p: { verified: boolean; origin: string }): boolean {
  return p.verified || isLoopbackOrigin(p.origin);
}

/** Origins on localhost and loopback addresses count as verified (DESIGN.md, Projects). */
export function isLoopbackOrigin(origin: string): boolean {
  try {
    return LOOPBACK_HOSTS.test(new URL(origin).hostname);
  } catch {
    return false;
  }
}
