import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const BUILD_INFO = fileURLToPath(new URL('../../../../dist/build-info.json', import.meta.url));

/** The version `npm run build` recorded from `git describe`; `v0.0.0-0-gunknown` without one. */
export function buildVersion(): string {
  try {
    const info = JSON.parse(readFileSync(BUILD_INFO, 'utf8')) as { version?: unknown };
    return typeof info.version === 'string' ? info.version : 'v0.0.0-0-gunknown';
  } catch {
    return 'v0.0.0-0-gunknown';
  }
}
