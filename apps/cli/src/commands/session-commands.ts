import type { Command } from 'commander';
import { unwrap } from '../api-result.js';
import { act, intOption, type SessionFactory } from '../command-action.js';
import { fields } from '../cli-output.js';
import { windowQuery, withWindow, type WindowOptions } from './window-options.js';

/** Summary fields worth a line each; the rest is in --json. */
const SUMMARY = [
  'session_id',
  'first_event_at',
  'last_event_at',
  'duration_ms',
  'event_count',
  'page_count',
  'entry_url',
  'exit_url',
  'referrer',
  'actions',
  'browser',
  'os',
  'device',
  'geo',
  'utm',
  'attributes',
  'tags',
  'classification',
];

export function registerSessionCommands(program: Command, make: SessionFactory): void {
  const sessions = program
    .command('sessions')
    .description('sessions of the project: list, read one, its events, attributes and tags, tag by hand');
  withWindow(sessions.command('list', { isDefault: true }).description('sessions, newest first'))
    .option('--limit <n>', 'how many (1-1000)', intOption('--limit'), 10)
    .action(
      act(make, async (s, o: WindowOptions & { limit: number }) => {
        const data = unwrap(
          await (
            await s.client()
          ).GET('/v1/sessions', { params: { query: { ...(await s.scope()), ...windowQuery(o), limit: o.limit } } }),
        );
        s.out.result(data, () =>
          s.out.table(data.sessions, fields('session_id', 'first_event_at', 'last_event_at', 'event_count')),
        );
      }),
    );
  sessions
    .command('show')
    .description("a session's summary")
    .argument('<session_id>')
    .action(
      act(make, async (s, id: string) => {
        const summary = unwrap(
          await (
            await s.client()
          ).GET('/v1/sessions/{session_id}', { params: { path: { session_id: id }, query: await s.scope() } }),
        );
        const record = summary as unknown as Record<string, unknown>;
        s.out.result(summary, () =>
          s.out.record(
            record,
            SUMMARY.filter((k) => k in record),
          ),
        );
      }),
    );
  sessions
    .command('events')
    .description("a session's enriched events, in order")
    .argument('<session_id>')
    .action(
      act(make, async (s, id: string) => {
        const data = unwrap(
          await (
            await s.client()
          ).GET('/v1/sessions/{session_id}/events', { params: { path: { session_id: id }, query: await s.scope() } }),
        );
        s.out.result(data, () =>
          s.out.table(data.events as Array<Record<string, unknown>>, [
            ...fields<Record<string, unknown>>('timestamp', 'action', 'path'),
            { header: 'payload', value: (e) => e.payload },
          ]),
        );
      }),
    );
  sessions
    .command('attributes')
    .description('attributes extracted for the session')
    .argument('<session_id>')
    .action(
      act(make, async (s, id: string) => {
        const data = unwrap(
          await (
            await s.client()
          ).GET('/v1/sessions/{session_id}/attributes', {
            params: { path: { session_id: id }, query: await s.scope() },
          }),
        );
        const attrs = data.attributes as Record<string, unknown>;
        s.out.result(data, () => (Object.keys(attrs).length ? s.out.record(attrs) : '(none)'));
      }),
    );
  sessions
    .command('tags')
    .description('tags of the session')
    .argument('<session_id>')
    .action(
      act(make, async (s, id: string) => {
        const data = unwrap(
          await (
            await s.client()
          ).GET('/v1/sessions/{session_id}/tags', { params: { path: { session_id: id }, query: await s.scope() } }),
        );
        s.out.result(data, () => s.out.table(data.tags, fields('tag', 'last_seen')));
      }),
    );
  sessions
    .command('tag')
    .description('tag a session by hand')
    .argument('<session_id>')
    .argument('<tag>')
    .action(
      act(make, async (s, id: string, tag: string) => {
        const data = unwrap(
          await (
            await s.client()
          ).POST('/v1/sessions/{session_id}/tags', {
            params: { path: { session_id: id } },
            body: { ...(await s.scope()), tag },
          }),
        );
        s.out.result(data, () => `tagged ${id} with ${tag}`);
      }),
    );
  sessions
    .command('untag')
    .description('take back a tag given by hand (rule tags follow their rules)')
    .argument('<session_id>')
    .argument('<tag>')
    .action(
      act(make, async (s, id: string, tag: string) => {
        const data = unwrap(
          await (
            await s.client()
          ).DELETE('/v1/sessions/{session_id}/tags/{tag}', {
            params: { path: { session_id: id, tag }, query: await s.scope() },
          }),
        );
        s.out.result(data, () => `took ${tag} back from ${id}`);
      }),
    );
}
