import type { Command } from 'commander';
import { unwrap } from '../api-result.js';
import { act, intOption, type SessionFactory } from '../command-action.js';
import { fields } from '../cli-output.js';
import { windowQuery, withWindow, type WindowOptions } from './window-options.js';

export function registerTagCommands(program: Command, make: SessionFactory): void {
  const tags = program.command('tags').description('tags of the project, and the sessions tagged in a window');
  tags
    .command('list', { isDefault: true })
    .description('distinct tags with last-seen times')
    .action(
      act(make, async (s) => {
        const data = unwrap(await (await s.client()).GET('/v1/tags', { params: { query: await s.scope() } }));
        s.out.result(data, () => s.out.table(data.tags, fields('tag', 'last_seen')));
      }),
    );
  withWindow(tags.command('sessions').description('sessions tagged within a window, newest first').argument('<tag>'))
    .option('--limit <n>', 'how many (1-1000)', intOption('--limit'), 100)
    .action(
      act(make, async (s, tag: string, o: WindowOptions & { limit: number }) => {
        const data = unwrap(
          await (
            await s.client()
          ).GET('/v1/tags/{tag}', {
            params: { path: { tag }, query: { ...(await s.scope()), ...windowQuery(o), limit: o.limit } },
          }),
        );
        s.out.result(data, () => s.out.table(data.sessions, fields('session_id', 'tagged_at')));
      }),
    );
}
