// Data ownership (issue 17): `spoor export`, `spoor erase` and `spoor projects delete`.
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import { describeFailure, unwrap } from '../api-result.js';
import { CliError, UsageError } from '../cli-errors.js';
import { act, intOption, type SessionFactory } from '../command-action.js';
import type { CliSession } from '../cli-session.js';
import { followJob } from './trigger-commands.js';
import { windowQuery, withWindow, type WindowOptions } from './window-options.js';

const WHATS = ['events', 'enriched_events', 'sessions'] as const;
const FORMATS = ['csv', 'ndjson', 'parquet'] as const;

interface ExportOptions extends WindowOptions {
  format: string;
  output?: string;
  pollMs: number;
}

/** Starts the export, follows the job, then streams the file to --output (`-`: stdout), else to the name the server gives. */
async function exportData(s: CliSession, what: string, o: ExportOptions): Promise<void> {
  if (!(WHATS as readonly string[]).includes(what)) throw new UsageError(`what to export: ${WHATS.join(', ')}`);
  if (!(FORMATS as readonly string[]).includes(o.format)) throw new UsageError(`--format is ${FORMATS.join(', ')}`);
  const client = await s.client();
  const body = {
    ...(await s.scope()),
    ...windowQuery(o),
    what: what as (typeof WHATS)[number],
    format: o.format as (typeof FORMATS)[number],
  };
  const queued = unwrap(await client.POST('/v1/exports', { body }));
  const job = await followJob(s, client, queued.job_id, o.pollMs);
  if (job.status === 'failed') throw new CliError(`the export failed: ${job.error ?? 'no reason given'}`);
  const result = job.result as { file_name: string; rows: number; bytes: number };
  const res = await client.GET('/v1/exports/{export_id}/file', {
    params: { path: { export_id: job.job_id } },
    parseAs: 'stream',
  });
  if (!res.response.ok) throw new CliError(describeFailure(res.response.status, res.error ?? null));
  const target = o.output ?? result.file_name;
  const sink = target === '-' ? s.streams.stdout : createWriteStream(target, { mode: 0o600 });
  // An empty file (no row in the window, CSV and NDJSON) comes as `Content-Length: 0`, which the
  // client answers without a body: it is written all the same.
  const bytes = res.data ? Readable.fromWeb(res.data as never) : Readable.from([]);
  await pipeline(bytes, sink, target === '-' ? { end: false } : {});
  if (target !== '-')
    s.streams.stderr.write(
      `wrote ${result.rows.toLocaleString('en')} rows, ${result.bytes.toLocaleString('en')} bytes to ${target}\n`,
    );
}

interface EraseOptions {
  session?: string;
  visitor?: string;
  ip?: string;
  pollMs: number;
}

/** Erases one person (exactly one of --session, --visitor, --ip), follows the job and prints what went. */
async function erase(s: CliSession, o: EraseOptions): Promise<void> {
  const given = [o.session !== undefined, o.visitor !== undefined, o.ip !== undefined].filter(Boolean).length;
  if (given !== 1) throw new UsageError('give exactly one of --session <id>, --visitor <id>, --ip <address>');
  const client = await s.client();
  const selector =
    o.session !== undefined
      ? { session_id: o.session }
      : o.visitor !== undefined
        ? { visitor_id: o.visitor }
        : { ip: o.ip! };
  const queued = unwrap(await client.POST('/v1/erasures', { body: { ...(await s.scope()), ...selector } }));
  const job = await followJob(s, client, queued.job_id, o.pollMs);
  if (job.status === 'failed') throw new CliError(`the erasure failed: ${job.error ?? 'no reason given'}`);
  const r = job.result as { sessions: number; events: number; overviews_rebuilt: number; transitions_rebuilt: number };
  s.out.result(
    job,
    () =>
      `erased ${r.events.toLocaleString('en')} events in ${r.sessions.toLocaleString('en')} sessions; ${r.overviews_rebuilt} overviews and ${r.transitions_rebuilt} transition matrices recounted`,
  );
}

export function registerDataCommands(program: Command, make: SessionFactory): void {
  program
    .command('erase')
    .description(
      'erase one person of the project: a session, a visitor (hex SHA-256 of the IP as stored, a line feed and the user agent) or everyone stored with an IP; waits for the job',
    )
    .option('--session <id>', 'a session id')
    .option('--visitor <id>', 'a visitor id')
    .option('--ip <address>', 'an IP address (matched as SPOOR_IP_MODE stored it)')
    .option('--poll-ms <ms>', 'how often to ask about the job', intOption('--poll-ms'), 500)
    .action(act(make, async (s, o: EraseOptions) => erase(s, o)));

  withWindow(
    program
      .command('export')
      .description(
        "export the project's events, enriched events or sessions as CSV, NDJSON or Parquet (waits for the job, then downloads)",
      ),
  )
    .argument('<what>', WHATS.join(', '))
    .option('--format <format>', FORMATS.join(', '), 'csv')
    .option('-o, --output <file>', 'where to write it; - for stdout (default: the file name the server gives)')
    .option('--poll-ms <ms>', 'how often to ask about the job', intOption('--poll-ms'), 500)
    .action(act(make, async (s, what: string, o: ExportOptions) => exportData(s, what, o)));

  const projects = program.commands.find((c) => c.name() === 'projects');
  if (!projects) throw new Error('register the project commands first');
  projects
    .command('delete')
    .description(
      'delete the project and everything it holds (events, sessions, tags, rules, jobs, overviews, channels, webhooks, alerts, schedules); cannot be undone',
    )
    .argument('[origin]', 'default: --origin or `spoor use`')
    .argument('[project]', 'default: --project or `spoor use`')
    .requiredOption('--confirm <project>', 'the project identifier again, to confirm')
    .option('--poll-ms <ms>', 'how often to ask about the job', intOption('--poll-ms'), 500)
    .action(
      act(
        make,
        async (s, origin: string | undefined, project: string | undefined, o: { confirm: string; pollMs: number }) => {
          const scope = origin && project ? { origin, project } : await s.scope();
          if (o.confirm !== scope.project)
            throw new UsageError(`--confirm must repeat the project identifier (${scope.project})`);
          const client = await s.client();
          const queued = unwrap(
            await client.DELETE('/v1/projects', { params: { query: { ...scope, confirm: o.confirm } } }),
          );
          const job = await followJob(s, client, queued.job_id, o.pollMs);
          if (job.status === 'failed') throw new CliError(`the deletion failed: ${job.error ?? 'no reason given'}`);
          s.out.result(job, () => `deleted ${scope.project} at ${scope.origin} and everything it held`);
        },
      ),
    );
}
