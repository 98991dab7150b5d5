import type { Browser, BrowserContext, Page } from 'playwright-core';

/** A desktop Chrome's user agent: the headless one names itself HeadlessChrome, which Spoor files as a bot. */
export const DESKTOP_CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';

/**
 * The user agent for the whole browser, not only per context: requests with `keepalive` (and
 * beacons) can leave through the browser process, where a context's override does not always
 * reach, and then carry HeadlessChrome (seen in a full run).
 */
export const BROWSER_ARGS = [`--user-agent=${DESKTOP_CHROME}`];

export interface Visitor {
  context: BrowserContext;
  page: Page;
  /** Page errors and console errors seen so far: a test fails when any appear. */
  errors: string[];
  close(): Promise<void>;
}

/**
 * A new visitor (own cookies and storage, like a new browser profile) with one tab open. It
 * comes from 127.0.0.1, which has no location: geolocation is proven by the pipeline tests with
 * X-Forwarded-For, which a context's extra headers do not reliably add to keepalive requests.
 */
export async function newVisitor(
  browser: Browser,
  init: (context: BrowserContext) => Promise<void> = async () => {},
): Promise<Visitor> {
  const context = await browser.newContext({ userAgent: DESKTOP_CHROME });
  await init(context);
  const errors: string[] = [];
  context.on('weberror', (e) => errors.push(`page error: ${e.error().message}`));
  const page = await context.newPage();
  watch(page, errors);
  return { context, page, errors, close: () => context.close() };
}

/** Collects what would show in the console as an error. */
export function watch(page: Page, errors: string[]): void {
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
}
