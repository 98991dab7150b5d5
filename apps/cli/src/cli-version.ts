import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The version `npm run build` recorded from `git describe` (the server's /openapi.json says the same). */
export function cliVersion(): string {
  try {
    const info = JSON.parse(readFileSync(fileURLToPath(new URL('../../../../dist/build-info.json', import.meta.url)), 'utf8')) as { version?: unknown };
    return typeof info.version === 'string' ? info.version : 'v0.0.0-0-gunknown';
  } catch {
    return 'v0.0.0-0-gunknown';
  }
}
