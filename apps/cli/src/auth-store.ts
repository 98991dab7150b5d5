import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from './cli-errors.js';

/** What `spoor login` keeps (auth.json, mode 0600: the token is a credential). */
export interface StoredLogin {
  url: string;
  email: string;
  token: string;
  /** ms since the epoch; null when the server did not say. */
  expires_at: number | null;
}

/** What `spoor use` keeps (context.json): the project later commands default to. */
export interface StoredContext {
  origin: string;
  project: string;
}

async function readJson<T>(path: string): Promise<T | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new CliError(`${path} is damaged (${(err as Error).message}); \`spoor logout\` removes it`);
  }
}

/** Written whole with the mode given; chmod too, since writeFile keeps an existing file's mode. */
async function writePrivate(dir: string, path: string, value: unknown): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(path, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  await chmod(path, 0o600);
}

export class AuthStore {
  constructor(readonly dir: string) {}

  get loginPath(): string {
    return join(this.dir, 'auth.json');
  }

  get contextPath(): string {
    return join(this.dir, 'context.json');
  }

  readLogin(): Promise<StoredLogin | null> {
    return readJson<StoredLogin>(this.loginPath);
  }

  writeLogin(login: StoredLogin): Promise<void> {
    return writePrivate(this.dir, this.loginPath, login);
  }

  /** True when there was a login to remove; the file is not read, so a damaged one goes too. */
  async clearLogin(): Promise<boolean> {
    try {
      await rm(this.loginPath);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  }

  readContext(): Promise<StoredContext | null> {
    return readJson<StoredContext>(this.contextPath);
  }

  writeContext(context: StoredContext): Promise<void> {
    return writePrivate(this.dir, this.contextPath, context);
  }
}
