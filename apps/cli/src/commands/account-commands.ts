// `spoor account delete` (issue 17): the account, its API keys and every project it holds.
import type { Command } from 'commander';
import { unwrap } from '../api-result.js';
import { CliError, UsageError } from '../cli-errors.js';
import { act, intOption, type SessionFactory } from '../command-action.js';
import type { CliSession } from '../cli-session.js';

interface DeleteOptions {
  confirm: string;
  pollMs: number;
}

/**
 * Queues the deletion, then follows the job until the account is gone: its last step deletes the
 * account, after which the token is refused (401) — the end of the job as this client can see it.
 * The stored login is forgotten then.
 */
async function deleteAccount(s: CliSession, o: DeleteOptions): Promise<void> {
  const client = await s.client();
  const account = unwrap(await client.GET('/v1/users/account'));
  const expected = account.email ?? account.account_id;
  if (o.confirm.trim().toLowerCase() !== expected.toLowerCase())
    throw new UsageError(`--confirm must repeat the account's ${account.email ? 'email' : 'id'} (${expected})`);
  const queued = unwrap(await client.DELETE('/v1/users/account', { params: { query: { confirm: o.confirm } } }));
  for (;;) {
    const res = await client.GET('/v1/jobs/{job_id}', { params: { path: { job_id: queued.job_id } } });
    if (res.response.status === 401) break;
    const job = unwrap(res);
    if (job.status === 'failed')
      throw new CliError(
        `the deletion failed: ${job.error ?? 'no reason given'}; the account is still there, try again`,
      );
    if (job.status === 'succeeded') break;
    await new Promise((r) => setTimeout(r, o.pollMs));
  }
  if (!s.env.token) await s.store.clearLogin();
  s.out.result(
    { deleted: true, account_id: account.account_id, job_id: queued.job_id },
    () => `deleted the account ${expected}, its API keys and all its projects`,
  );
}

export function registerAccountCommands(program: Command, make: SessionFactory): void {
  program
    .command('account')
    .description('the account itself')
    .command('delete')
    .description(
      'delete your account, its API keys and all its projects with everything they hold; cannot be undone (needs a login, not an API key)',
    )
    .requiredOption('--confirm <email>', "your account's email again (its id when it has none), to confirm")
    .option('--poll-ms <ms>', 'how often to ask about the job', intOption('--poll-ms'), 500)
    .action(act(make, async (s, o: DeleteOptions) => deleteAccount(s, o)));
}
