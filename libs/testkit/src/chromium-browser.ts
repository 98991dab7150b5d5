import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { enginesOff, infraRequired, reportLeftOut, reportSkip } from './engine-registry.js';

// Debian's chromium driven by playwright-core: no browser download (none is possible here).
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

// Without the background-networking switches Chromium keeps calling Google's hosts, which a
// closed network refuses many at a time; --no-sandbox because CI runs as root.
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/**
 * A headless Chromium, or null (reported loudly as SKIPPED) when none is installed and
 * SPOOR_REQUIRE_INFRA is not set; with it, a missing browser fails the run. SPOOR_CHROMIUM names
 * another executable.
 */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser | null> {
  if (enginesOff()) {
    reportLeftOut('chromium');
    return null;
  }
  const executablePath = [process.env.SPOOR_CHROMIUM, ...CANDIDATES].find((p): p is string => !!p && existsSync(p));
  try {
    if (!executablePath) throw new Error('no Chromium executable (apt-get install chromium, or set SPOOR_CHROMIUM)');
    return await chromium.launch({ executablePath, headless: true, args: [...FLAGS, ...extraArgs] });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    if (infraRequired()) throw new Error(`chromium could not start: ${reason}`);
    reportSkip('chromium', reason);
    return null;
  }
}
