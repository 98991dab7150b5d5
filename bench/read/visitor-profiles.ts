// The vocabulary the synthetic dataset draws from: what the enricher would have derived for a
// handful of common browsers and places, the pages of a small SaaS site, and the actions its
// tracker sends. Values are shaped like the enricher's output (libs/enrich), so the stored rows
// have the widths and null patterns real ones have.
import type { Device, Geo, NameVersion, Utm } from '@spoor/schemas';

export interface ClientProfile {
  userAgent: string;
  browser: NameVersion;
  os: NameVersion;
  device: Device;
}

const desktop: Device = { type: null, vendor: null, model: null };

export const CLIENTS: readonly ClientProfile[] = [
  {
    userAgent:
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    browser: { name: 'Chrome', version: '124.0.0.0' },
    os: { name: 'Windows', version: '10' },
    device: desktop,
  },
  {
    userAgent:
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36',
    browser: { name: 'Chrome', version: '125.0.0.0' },
    os: { name: 'macOS', version: '10.15.7' },
    device: { type: null, vendor: 'Apple', model: 'Macintosh' },
  },
  {
    userAgent:
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
    browser: { name: 'Safari', version: '17.4' },
    os: { name: 'macOS', version: '10.15.7' },
    device: { type: null, vendor: 'Apple', model: 'Macintosh' },
  },
  {
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0',
    browser: { name: 'Firefox', version: '126.0' },
    os: { name: 'Linux', version: null },
    device: desktop,
  },
  {
    userAgent:
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
    browser: { name: 'Mobile Safari', version: '17.5' },
    os: { name: 'iOS', version: '17.5' },
    device: { type: 'mobile', vendor: 'Apple', model: 'iPhone' },
  },
  {
    userAgent:
      'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36',
    browser: { name: 'Chrome', version: '124.0.6367.82' },
    os: { name: 'Android', version: '14' },
    device: { type: 'mobile', vendor: 'Samsung', model: 'SM-S918B' },
  },
  {
    userAgent:
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.80',
    browser: { name: 'Edge', version: '124.0.2478.80' },
    os: { name: 'Windows', version: '10' },
    device: desktop,
  },
];

export const GEOS: readonly Geo[] = [
  { country: 'DE', region: 'BE', city: 'Berlin', latitude: 52.5196, longitude: 13.4069 },
  { country: 'GB', region: 'ENG', city: 'London', latitude: 51.5085, longitude: -0.1257 },
  { country: 'US', region: 'CA', city: 'San Francisco', latitude: 37.7749, longitude: -122.4194 },
  { country: 'US', region: 'NY', city: 'New York', latitude: 40.7143, longitude: -74.006 },
  { country: 'FR', region: 'IDF', city: 'Paris', latitude: 48.8534, longitude: 2.3488 },
  { country: 'JP', region: '13', city: 'Tokyo', latitude: 35.6895, longitude: 139.6917 },
  { country: 'BR', region: 'SP', city: 'São Paulo', latitude: -23.5475, longitude: -46.6361 },
  { country: 'IN', region: 'KA', city: 'Bengaluru', latitude: 12.9719, longitude: 77.5937 },
  { country: 'NL', region: null, city: null, latitude: 52.3824, longitude: 4.8995 },
  { country: null, region: null, city: null, latitude: null, longitude: null },
];

export const REFERRERS: readonly (string | null)[] = [
  null,
  null,
  null,
  null,
  'https://www.google.com/',
  'https://www.google.com/',
  'https://www.google.com/',
  'https://news.ycombinator.com/',
  'https://t.co/',
  'https://www.bing.com/',
  'https://duckduckgo.com/',
  'https://github.com/spoor-dev/spoor',
];

const NO_UTM: Utm = { source: null, medium: null, campaign: null, term: null, content: null };
/** About a quarter of sessions arrive from a campaign; the rest carry no UTM fields. */
export const UTMS: readonly Utm[] = [
  NO_UTM,
  NO_UTM,
  NO_UTM,
  NO_UTM,
  NO_UTM,
  NO_UTM,
  NO_UTM,
  NO_UTM,
  NO_UTM,
  { source: 'newsletter', medium: 'email', campaign: 'spring-sale', term: null, content: 'header-cta' },
  { source: 'google', medium: 'cpc', campaign: 'brand-2026', term: 'session replay', content: null },
  { source: 'twitter', medium: 'social', campaign: 'launch-week', term: null, content: null },
];

export const PAGES: readonly { path: string; title: string }[] = [
  { path: '/', title: 'Acme - Analytics you host yourself' },
  { path: '/pricing', title: 'Pricing - Acme' },
  { path: '/features', title: 'Features - Acme' },
  { path: '/docs/getting-started', title: 'Getting started - Acme Docs' },
  { path: '/docs/api/sessions', title: 'Sessions API - Acme Docs' },
  { path: '/blog/shipping-faster-with-feature-flags', title: 'Shipping faster with feature flags - Acme Blog' },
  { path: '/blog/why-we-self-host', title: 'Why we self-host - Acme Blog' },
  { path: '/product/team-plan', title: 'Team plan - Acme' },
  { path: '/cart', title: 'Your cart - Acme' },
  { path: '/checkout', title: 'Checkout - Acme' },
  { path: '/account/settings', title: 'Settings - Acme' },
  { path: '/search', title: 'Search - Acme' },
];

/** The tracker's actions with their share of events; `pageview` is what the browser logger sends. */
export const ACTIONS: readonly { action: string; weight: number }[] = [
  { action: 'pageview', weight: 35 },
  { action: 'click', weight: 30 },
  { action: 'scroll', weight: 15 },
  { action: 'form_submit', weight: 6 },
  { action: 'add_to_cart', weight: 6 },
  { action: 'checkout', weight: 3 },
  { action: 'signup', weight: 3 },
  { action: 'js_error', weight: 2 },
];

/** Session tags and the share of sessions that carry them (GET /v1/tags/{tag} reads `vip`). */
export const TAGS: readonly { tag: string; share: number }[] = [
  { tag: 'vip', share: 0.1 },
  { tag: 'returning', share: 0.25 },
];
