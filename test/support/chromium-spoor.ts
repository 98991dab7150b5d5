import type { Context } from 'mocha';
import type { Browser } from 'playwright-core';
import { launchChromium, requireEngine } from '@spoor/testkit';
import { BROWSER_ARGS } from './browser-visitor.js';
import type { Mode } from './engine-env.js';
import { startSpoor, type Harness } from './spoor-harness.js';

/**
 * Chromium and Spoor in `mode` (with `env`) for a browser test; skips loudly when either is
 * missing (a failure under SPOOR_REQUIRE_INFRA), closing the browser when Spoor cannot start.
 */
export async function startChromiumAndSpoor(
  ctx: Context,
  mode: Mode,
  env: Record<string, string> = {},
): Promise<{ browser: Browser; spoor: Harness }> {
  const browser = await launchChromium(BROWSER_ARGS);
  requireEngine(ctx, browser ? 'ok' : null, 'chromium');
  const spoor = await startSpoor(mode, env);
  if (!spoor) await browser!.close();
  requireEngine(ctx, spoor ? 'ok' : null, `engines for ${mode} mode`);
  return { browser: browser!, spoor: spoor! };
}
