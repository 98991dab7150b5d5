import type { Command } from 'commander';
import { unwrap } from '../api-result.js';
import { act, type SessionFactory } from '../command-action.js';
import { fields } from '../cli-output.js';

export function registerApiKeyCommands(program: Command, make: SessionFactory): void {
  const keys = program
    .command('apikey')
    .description('API keys of your account: usable as SPOOR_TOKEN or a Bearer credential');
  keys
    .command('list', { isDefault: true })
    .description('your API keys (never their secrets)')
    .action(
      act(make, async (s) => {
        const data = unwrap(await (await s.client()).GET('/v1/users/apikey'));
        s.out.result(data, () => s.out.table(data.api_keys, fields('api_key_name', 'created_at')));
      }),
    );
  keys
    .command('create')
    .description('create a key; its secret is shown this once')
    .argument('<name>', 'letters, digits, . _ -')
    .action(
      act(make, async (s, name: string) => {
        const created = unwrap(await (await s.client()).POST('/v1/users/apikey', { body: { api_key_name: name } }));
        s.out.result(
          created,
          () => `created ${created.api_key_name}; its secret, shown this once:\n${created.api_key}`,
        );
      }),
    );
  keys
    .command('delete')
    .description('revoke a key')
    .argument('<name>')
    .action(
      act(make, async (s, name: string) => {
        const data = unwrap(
          await (
            await s.client()
          ).DELETE('/v1/users/apikey/{api_key_name}', { params: { path: { api_key_name: name } } }),
        );
        s.out.result(data, () => `deleted ${name}`);
      }),
    );
}
