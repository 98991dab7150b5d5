import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const BUILD_INFO = fileURLToPath(new URL('../../../../dist/build-info.json', import.meta.url));

let version: string | null = null;

/**
 * The version `npm run build` recorded from `git describe`; `v0.0.0-0-gunknown` without one.
 * Read once: the health report asks on every request, and the build does not change under a
 * running process. Imported alone by the CLI (`@spoor/runtime/build-version`), which must not
 * load the services' dependencies.
 */
export function buildVersion(): string {
  if (version !== null) return version;
  try {
    const info = JSON.parse(readFileSync(BUILD_INFO, 'utf8')) as { version?: unknown };
    version = typeof info.version === 'string' ? info.version : 'v0.0.0-0-gunknown';
  } catch {
    version = 'v0.0.0-0-gunknown';
  }
  return version;
}
