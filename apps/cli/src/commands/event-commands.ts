import type { Command } from 'commander';
import { unwrap } from '../api-result.js';
import { act, intOption, type SessionFactory } from '../command-action.js';
import { fields } from '../cli-output.js';
import { windowQuery, withWindow, type WindowOptions } from './window-options.js';

type EventRow = Record<string, unknown>;

export function registerEventCommands(program: Command, make: SessionFactory): void {
  const events = program
    .command('events')
    .description('events of the project: raw, enriched, and the action names with last-seen times');
  for (const [name, path, description] of [
    ['raw', '/v1/events', 'raw events as received, oldest first (the domain must be verified)'],
    ['enriched', '/v1/events/enriched', 'events with browser, location and query fields (the domain must be verified)'],
  ] as const) {
    withWindow(events.command(name, name === 'raw' ? { isDefault: true } : {}).description(description))
      .option('--limit <n>', 'how many (1-1000)', intOption('--limit'), 100)
      .action(
        act(make, async (s, o: WindowOptions & { limit: number }) => {
          const data = unwrap(
            await (
              await s.client()
            ).GET(path, { params: { query: { ...(await s.scope()), ...windowQuery(o), limit: o.limit } } }),
          );
          const rows = data.events as EventRow[];
          s.out.result(data, () =>
            s.out.table(rows, [
              ...fields<EventRow>('timestamp', 'action', 'session_id'),
              { header: name === 'raw' ? 'url' : 'path', value: (e) => (name === 'raw' ? e.url : e.path) },
              { header: 'payload', value: (e) => e.payload },
            ]),
          );
        }),
      );
  }
  events
    .command('actions')
    .description('every action name with the time it was last seen; one missing is not being sent')
    .action(
      act(make, async (s) => {
        const data = unwrap(await (await s.client()).GET('/v1/events/actions', { params: { query: await s.scope() } }));
        s.out.result(data, () => s.out.table(data.actions, fields('action', 'last_seen')));
      }),
    );
}
