import { expect } from 'chai';
import type { Context } from 'mocha';
import type { Browser } from 'playwright-core';
import { ApiClient, signUp } from './api-client.js';
import { startChromiumAndSpoor } from './chromium-spoor.js';
import type { Mode } from './engine-env.js';
import type { Harness } from './spoor-harness.js';
import { startTestSite, type TestSite } from './test-site.js';

export const SITE_PROJECTS = { tag: 'site/tag', module: 'site/module', optOut: 'site/optout', dnt: 'site/dnt' };

export interface LoggerRig {
  browser: Browser;
  spoor: Harness;
  site: TestSite;
  /** Signed up; owns every project of the site. */
  api: ApiClient;
  stop(): Promise<void>;
}

/**
 * Chromium, Spoor in the given mode, and the test site on another port, with the site's
 * projects registered (SITE_PROJECTS and `more`). Skips loudly when Chromium or an engine is
 * missing (a failure under SPOOR_REQUIRE_INFRA).
 */
export async function startLoggerRig(ctx: Context, mode: Mode, more: string[] = []): Promise<LoggerRig> {
  const { browser, spoor } = await startChromiumAndSpoor(ctx, mode);
  const site = await startTestSite(spoor.url, SITE_PROJECTS);
  const api = await signUp(spoor.url);
  for (const project of [...Object.values(SITE_PROJECTS), ...more])
    expect((await api.post('/v1/users/projects', { origin: site.origin, project })).status).to.equal(200);
  return {
    browser,
    spoor,
    site,
    api,
    async stop() {
      await browser.close();
      await site.close();
      await spoor.stop();
    },
  };
}
