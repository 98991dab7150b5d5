import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DESKTOP_CHROME } from '../support/browser-visitor.js';

/** Screenshots of every page, a test artifact (git-ignored): test-artifacts/dashboard/<mode>/<name>.png. */
export const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'dashboard');

/** An expected failed request: Chromium logs each non-2xx answer of fetch() as a console error. */
export interface ExpectedFailure {
  status: number;
  path: string;
}

export interface DashboardTab {
  context: BrowserContext;
  page: Page;
  /** Page errors, console errors, and failed API answers that no test declared expected. */
  errors: string[];
  /** Declares that the next answer `status` for `path` is on purpose (a validation error shown, a 404 read as "none yet"). */
  expectFailure(f: ExpectedFailure): void;
  /** Declared failures that have not happened (yet): a test that ends with some expected one that never came. */
  pending(): ExpectedFailure[];
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * A browser profile on the dashboard. Every answer of 400 or more must have been declared
 * expected, or the test fails; Chromium's console line for such an answer is left to that
 * check. Any other console error, page error or failed request fails the test.
 */
export async function openDashboard(
  browser: Browser,
  mode: string,
  opts: { viewport?: { width: number; height: number }; from?: BrowserContext } = {},
): Promise<DashboardTab> {
  // `from`: the same signed-in browser storage (the token in localStorage) in a new window size.
  const storageState = opts.from ? await opts.from.storageState() : undefined;
  const context = await browser.newContext({
    userAgent: DESKTOP_CHROME,
    viewport: opts.viewport ?? { width: 1280, height: 900 },
    ...(storageState ? { storageState } : {}),
  });
  const page = await context.newPage();
  const errors: string[] = [];
  const expected: ExpectedFailure[] = [];
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('response', (res) => {
    if (res.status() < 400) return;
    const path = new URL(res.url()).pathname;
    const i = expected.findIndex((f) => f.status === res.status() && f.path === path);
    if (i >= 0) expected.splice(i, 1);
    else errors.push(`unexpected ${res.status()} for ${res.request().method()} ${path}`);
  });
  page.on('requestfailed', (req) =>
    errors.push(`request failed: ${req.method()} ${req.url()} ${req.failure()?.errorText ?? ''}`),
  );
  page.on('console', (m) => {
    // Chromium's line for an HTTP error answer: the response listener above already judged it.
    if (m.type() !== 'error' || /^Failed to load resource: the server responded with a status of/.test(m.text()))
      return;
    errors.push(`console: ${m.text()}`);
  });
  const dir = join(ARTIFACTS, mode);
  await mkdir(dir, { recursive: true });
  return {
    context,
    page,
    errors,
    expectFailure: (f) => void expected.push(f),
    pending: () => [...expected],
    screenshot: async (name) => void (await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true })),
    close: () => context.close(),
  };
}

/** Every input, select and textarea on the page has an accessible name (a label or aria-label). */
export async function expectLabelled(page: Page): Promise<void> {
  // The callbacks run in the page; the tests' TypeScript has no DOM types, hence `any`.
  const unlabelled = await page.evaluate(() =>
    [...(globalThis as any).document.querySelectorAll('input, select, textarea')]
      .filter((el: any) => el.type !== 'hidden' && !(el.labels?.length || el.getAttribute('aria-label')))
      .map((el: any) => String(el.outerHTML).slice(0, 120)),
  );
  expect(unlabelled, 'inputs without a label').to.deep.equal([]);
}

/** The page does not scroll sideways (the 375 px check). */
export async function expectNoHorizontalScroll(page: Page): Promise<void> {
  const { scroll, width } = await page.evaluate(() => {
    const g = globalThis as any;
    return { scroll: g.document.documentElement.scrollWidth as number, width: g.innerWidth as number };
  });
  expect(scroll, 'document width beyond the viewport').to.be.at.most(width);
}

/** Waits until `text` shows on the page (the first match). */
export async function see(page: Page, text: string | RegExp, timeout = 20_000): Promise<void> {
  await page.getByText(text).first().waitFor({ state: 'visible', timeout });
}

/** Follows a link of the navigation, as a person clicks it. */
export async function go(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { level: 1 }).first().waitFor();
}
