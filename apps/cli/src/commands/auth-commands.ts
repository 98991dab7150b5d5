import type { Command } from 'commander';
import { describeFailure, unwrap } from '../api-result.js';
import { CliError, UsageError } from '../cli-errors.js';
import { act, type SessionFactory } from '../command-action.js';
import type { CliSession } from '../cli-session.js';
import { readPassword } from '../password-prompt.js';
import { logout } from './logout-command.js';

async function password(s: CliSession, prompt: string): Promise<string> {
  if (s.env.password !== undefined) return s.env.password;
  const typed = await readPassword(s.streams, prompt);
  if (!typed) throw new UsageError('no password given');
  return typed;
}

/** Signs up or logs in, then keeps the token in auth.json (mode 0600). */
async function obtainToken(s: CliSession, email: string, path: '/v1/auth/login' | '/v1/auth/signup'): Promise<void> {
  const url = await s.serverUrl();
  const pw = await password(s, path === '/v1/auth/signup' ? 'Choose a password: ' : 'Password: ');
  const client = s.anonymous(url);
  const result = await client.POST(path, { body: { email, password: pw } });
  // Here a 401 is a wrong e-mail or password, not a stale login.
  if (result.response.status === 401)
    throw new CliError(`login refused: ${describeFailure(401, result.error ?? null)}`);
  const { id_token, expires_at } = unwrap(result);
  await s.store.writeLogin({ url, email, token: id_token, expires_at });
  s.out.result({ email, url, expires_at }, () => `logged in to ${url} as ${email} until ${s.out.time(expires_at)}`);
}

export function registerAuthCommands(program: Command, make: SessionFactory): void {
  program
    .command('login')
    .description(
      'log in with your e-mail address; asks for the password (or reads SPOOR_PASSWORD) and keeps the token in ~/.config/spoor/auth.json',
    )
    .argument('<email>', 'your account')
    .action(act(make, async (s, email: string) => obtainToken(s, email, '/v1/auth/login')));
  program
    .command('signup')
    .description('create an account on the server, then log in as it')
    .argument('<email>', 'the new account')
    .action(act(make, async (s, email: string) => obtainToken(s, email, '/v1/auth/signup')));
  program
    .command('logout')
    .description(
      'revoke the stored token on the server and forget it (forgotten even when the server cannot be reached; then exits 1 and says so)',
    )
    .action(act(make, logout));
  program
    .command('whoami')
    .description('the account the stored token (or SPOOR_TOKEN) belongs to, and the server')
    .action(
      act(make, async (s) => {
        const client = await s.client();
        const account = unwrap(await client.GET('/v1/users/account'));
        const login = await s.login();
        const data = {
          ...account,
          url: await s.serverUrl(),
          expires_at: s.env.token ? null : (login?.expires_at ?? null),
        };
        s.out.result(data, () => s.out.record(data));
      }),
    );
}
