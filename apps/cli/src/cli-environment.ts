import { homedir } from 'node:os';
import { join } from 'node:path';

/** The environment the CLI reads, in one place: tests pass their own. */
export interface CliEnvironment {
  /** SPOOR_URL: the server, when --url is not given. */
  url: string | undefined;
  /** SPOOR_PASSWORD: answers the login prompt. */
  password: string | undefined;
  /** SPOOR_TOKEN: an ID token or API key used instead of the stored login (scripts, CI). */
  token: string | undefined;
  /** $XDG_CONFIG_HOME/spoor, else ~/.config/spoor. */
  configDir: string;
}

export function readEnvironment(env: NodeJS.ProcessEnv): CliEnvironment {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return {
    url: env.SPOOR_URL || undefined,
    password: env.SPOOR_PASSWORD || undefined,
    token: env.SPOOR_TOKEN || undefined,
    configDir: join(base, 'spoor'),
  };
}
