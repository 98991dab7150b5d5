import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { makeTempDir } from '@spoor/testkit';

/** The built binary, as npm links it into node_modules/.bin/spoor. */
export const SPOOR_BIN = join(process.cwd(), 'apps/cli/bin/spoor.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (throws when it is not). */
  json(): any;
}

export interface CliUser {
  /** Runs `spoor <args>` with this user's config dir and the server's URL; stdout is a pipe (JSON). */
  run(args: string[], opts?: { input?: string; env?: Record<string, string> }): Promise<CliResult>;
  /** Runs it on a pseudo-terminal (util-linux `script`), as a person would: tables, prompts. */
  tty(args: string[], opts?: { keys?: string[]; env?: Record<string, string> }): Promise<CliResult>;
  configDir: string;
}

function collect(child: ReturnType<typeof spawn>): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr, json: () => JSON.parse(stdout) }));
  });
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A user of the CLI with an empty config dir (XDG_CONFIG_HOME), times in UTC for stable output. */
export async function cliUser(serverUrl: string): Promise<CliUser> {
  const xdg = await makeTempDir('spoor-cli');
  const base = { PATH: process.env.PATH ?? '', HOME: xdg, XDG_CONFIG_HOME: xdg, SPOOR_URL: serverUrl, TZ: 'UTC' };
  return {
    configDir: join(xdg, 'spoor'),
    run(args, opts = {}) {
      const child = spawn(process.execPath, [SPOOR_BIN, ...args], {
        env: { ...base, ...opts.env },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      child.stdin!.end(opts.input ?? '');
      return collect(child);
    },
    async tty(args, opts = {}) {
      // `script` gives the command a terminal and copies what we write to its keyboard; -e keeps the exit code.
      const command = [process.execPath, SPOOR_BIN, ...args].map(quote).join(' ');
      const child = spawn('script', ['-qec', command, '/dev/null'], {
        env: { ...base, TERM: 'dumb', ...opts.env },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      for (const key of opts.keys ?? []) {
        await new Promise((r) => setTimeout(r, 700));
        child.stdin!.write(key);
      }
      const result = collect(child);
      setTimeout(() => child.stdin!.end(), 200);
      return result;
    },
  };
}
