import type { Browser, BrowserContext, Page } from 'playwright-core';

/** A desktop Chrome's user agent: the headless one names itself HeadlessChrome, which Spoor files as a bot. */
export const DESKTOP_CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';

export interface Visitor {
  context: BrowserContext;
  page: Page;
  /** Page errors and console errors seen so far: a test fails when any appear. */
  errors: string[];
  close(): Promise<void>;
}

/**
 * A new visitor (own cookies and storage, like a new browser profile) with one tab open. Its
 * requests claim a public address through X-Forwarded-For (Spoor runs with SPOOR_TRUST_PROXY),
 * so geolocation has something to find.
 */
export async function newVisitor(browser: Browser, init: (context: BrowserContext) => Promise<void> = async () => {}): Promise<Visitor> {
  const context = await browser.newContext({ userAgent: DESKTOP_CHROME, extraHTTPHeaders: { 'x-forwarded-for': '8.8.8.8' } });
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
