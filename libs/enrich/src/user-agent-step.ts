import type { Device, NameVersion } from '@spoor/schemas';
// ua-parser-js stays on 1.x: 2.x is AGPL. 1.x is CommonJS, hence the default import.
import UAParser from 'ua-parser-js';
import { LruCache } from './lru-cache.js';

export interface UserAgentInfo {
  browser: NameVersion;
  os: NameVersion;
  device: Device;
  bot: boolean;
}

export interface UserAgentParserOptions {
  /** Distinct user agents kept parsed (default 10,000). */
  cacheSize?: number;
}

export interface UserAgentParser {
  /** Never throws. Repeated user agents answer the same frozen object from the cache. */
  parse(userAgent: string): UserAgentInfo;
  /** Entries currently cached (for tests and the health page). */
  readonly cacheEntries: number;
}

/**
 * Crawlers whose user agent has no generic `bot|crawler|spider` word, or that we want listed
 * by name anyway. Case-insensitive substrings. curl and HTTP libraries are deliberately absent:
 * server-side senders use them, and that is real traffic to us.
 */
const KNOWN_CRAWLERS = [
  'googlebot',
  'google-inspectiontool',
  'mediapartners-google',
  'adsbot-google',
  'storebot-google',
  'bingbot',
  'bingpreview',
  'baiduspider',
  'yandexbot',
  'yandex.com/bots',
  'duckduckbot',
  'slurp',
  'facebookexternalhit',
  'facebookcatalog',
  'meta-externalagent',
  'twitterbot',
  'slackbot',
  'linkedinbot',
  'discordbot',
  'telegrambot',
  'pinterestbot',
  'applebot',
  'petalbot',
  'ahrefsbot',
  'semrushbot',
  'mj12bot',
  'dotbot',
  'bytespider',
  'ccbot',
  'gptbot',
  'chatgpt-user',
  'oai-searchbot',
  'claudebot',
  'claude-web',
  'anthropic-ai',
  'perplexitybot',
  'amazonbot',
  'ia_archiver',
  'seznambot',
  'yeti/',
  'qwantify',
  'embedly',
  'dataforseobot',
  'blexbot',
];
/**
 * Browsers driven by a program rather than a person (issue 20): `HeadlessChrome` (Puppeteer's and
 * Playwright's default), PhantomJS, test runners and audit tools. They run a real engine, so
 * nothing else in the user agent gives them away. Our own browser tests set a desktop Chrome
 * user agent (test/support/browser-visitor.ts).
 */
const AUTOMATION = [
  'headless',
  'phantomjs',
  'slimerjs',
  'htmlunit',
  'puppeteer',
  'playwright',
  'selenium',
  'webdriver',
  'cypress',
  'chrome-lighthouse',
];
const KNOWN_BOT_PATTERN = new RegExp(
  [...KNOWN_CRAWLERS, ...AUTOMATION].map((s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|'),
  'i',
);

/** "bot" not followed by a letter, so "Googlebot/2.1" and "MyBot" match but "Botanic" does not. */
const GENERIC_BOT_PATTERN = /bot(?![a-z])|crawler|crawling|spider/i;
/** Cubot is a phone maker: "Android 9; CUBOT X19" is a person. */
const FALSE_POSITIVES = /cubot/gi;

export function isBot(userAgent: string): boolean {
  const ua = userAgent.trim();
  // A browser always sends a user agent; an empty one is a script that does not care to say.
  if (ua === '') return true;
  if (KNOWN_BOT_PATTERN.test(ua)) return true;
  return GENERIC_BOT_PATTERN.test(ua.replace(FALSE_POSITIVES, ''));
}

/**
 * ua-parser-js 1.x leaves device.type undefined for desktops (its types are console, mobile,
 * tablet, smarttv, wearable, embedded). These OS names only run on desktops and laptops.
 */
const DESKTOP_OS = new Set([
  'Windows',
  'Mac OS',
  'macOS',
  'Linux',
  'Ubuntu',
  'Debian',
  'Fedora',
  'Mint',
  'Arch',
  'Gentoo',
  'SUSE',
  'openSUSE',
  'Red Hat',
  'CentOS',
  'Mandriva',
  'Slackware',
  'Kubuntu',
  'Xubuntu',
  'Deepin',
  'elementary OS',
  'Manjaro',
  'Chromium OS',
  'Chrome OS',
  'FreeBSD',
  'OpenBSD',
  'NetBSD',
  'DragonFly',
  'Solaris',
  'Unix',
  'Haiku',
]);

const orNull = (value: string | undefined): string | null => (value === undefined || value === '' ? null : value);

function parseUncached(parser: UAParser.UAParserInstance, userAgent: string): UserAgentInfo {
  const result = parser.setUA(userAgent).getResult();
  const os = { name: orNull(result.os.name), version: orNull(result.os.version) };
  const declaredType = orNull(result.device.type);
  const type = declaredType ?? (os.name !== null && DESKTOP_OS.has(os.name) ? 'desktop' : null);
  return Object.freeze({
    browser: Object.freeze({ name: orNull(result.browser.name), version: orNull(result.browser.version) }),
    os: Object.freeze(os),
    device: Object.freeze({ type, vendor: orNull(result.device.vendor), model: orNull(result.device.model) }),
    bot: isBot(userAgent),
  });
}

/**
 * Longer user agents are parsed but not cached: a real browser's is well under 1 KB, and
 * caching 10 KB junk strings would let one client pin ~100 MB of keys.
 */
const MAX_CACHED_UA_LENGTH = 1024;

/**
 * A full parse costs tens of microseconds and most traffic repeats a few hundred user
 * agents, so results are cached by the full string in a bounded LRU.
 */
export function createUserAgentParser(options: UserAgentParserOptions = {}): UserAgentParser {
  const cache = new LruCache<string, UserAgentInfo>(options.cacheSize ?? 10_000);
  // One parser instance reused via setUA: constructing one per call is measurable.
  const parser = new UAParser();
  return {
    get cacheEntries() {
      return cache.size;
    },
    parse(userAgent: string): UserAgentInfo {
      const cached = cache.get(userAgent);
      if (cached !== undefined) return cached;
      const info = parseUncached(parser, userAgent);
      if (userAgent.length <= MAX_CACHED_UA_LENGTH) cache.set(userAgent, info);
      return info;
    },
  };
}
